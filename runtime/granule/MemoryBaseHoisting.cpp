//===- MemoryBaseHoisting.cpp - post-pass over wasm2c output ---------------===//
#include "granule/MemoryBaseHoisting.h"

#include <cctype>
#include <string_view>

namespace synergy::granule {
namespace {

constexpr std::string_view kBaseLocal = "synergy_membase";

constexpr std::string_view kBaseHelpers = R"(
#define SYNERGY_DEFINE_LOAD_AT_BASE(name, t1, t2, t3)      \
  static inline t3 name##_at_base(u8* base, u64 addr) {    \
    t1 result;                                             \
    wasm_rt_memcpy(&result, base + addr, sizeof(t1));      \
    return (t3)(t2)result;                                 \
  }
#define SYNERGY_DEFINE_STORE_AT_BASE(name, t1, t2)                  \
  static inline void name##_at_base(u8* base, u64 addr, t2 value) { \
    t1 wrapped = (t1)value;                                         \
    wasm_rt_memcpy(base + addr, &wrapped, sizeof(t1));              \
  }
)";

bool isIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool isLoadOrStoreName(std::string_view name) {
  for (std::string_view type : {"i32_", "i64_", "f32_", "f64_"}) {
    if (name.substr(0, 4) != type) continue;
    std::string_view rest = name.substr(4);
    return rest.substr(0, 4) == "load" || rest.substr(0, 5) == "store";
  }
  return false;
}

// "DEFINE_LOAD(i32_load, u32, u32, u32)" -> the _at_base twin, or "".
std::string baseTwinOfDefinition(std::string_view line) {
  for (auto [macro, twin] : {std::pair{std::string_view("DEFINE_LOAD("),
                                       std::string_view("SYNERGY_DEFINE_LOAD_AT_BASE(")},
                             std::pair{std::string_view("DEFINE_STORE("),
                                       std::string_view("SYNERGY_DEFINE_STORE_AT_BASE(")}}) {
    if (line.substr(0, macro.size()) == macro)
      return std::string(twin) + std::string(line.substr(macro.size())) + "\n";
  }
  return "";
}

}  // namespace

bool hoistMemoryBase(std::string& cSource, const std::string& moduleName,
                     const std::string& memoryField) {
  const std::string functionHead = "(Z_" + moduleName + "_instance_t* instance";
  const std::string memoryArg = "(&instance->" + memoryField + ", ";
  const std::string baseDecl =
      "  u8* const " + std::string(kBaseLocal) + " = instance->" + memoryField + ".data;\n";

  std::string out;
  out.reserve(cSource.size() + cSource.size() / 8);
  std::string twins;
  bool helpersEmitted = false;
  bool inDefinitionHead = false;

  size_t pos = 0;
  while (pos < cSource.size()) {
    size_t end = cSource.find('\n', pos);
    if (end == std::string::npos) end = cSource.size();
    std::string_view line(cSource.data() + pos, end - pos);
    pos = end + 1;

    std::string twin = baseTwinOfDefinition(line);
    if (!twin.empty()) {
      twins += twin;
      out.append(line);
      out += '\n';
      continue;
    }
    if (!twins.empty() && !helpersEmitted) {
      // First line after the block of DEFINE_LOAD/DEFINE_STORE lines.
      out += kBaseHelpers;
      out += twins;
      helpersEmitted = true;
    }

    // wasm2c wraps a long parameter list onto further lines; the body starts
    // after the line that ends in '{'.
    if (line.substr(0, 7) == "static " && line.find(functionHead) != std::string_view::npos)
      inDefinitionHead = true;
    bool isFunctionDefinition = inDefinitionHead && !line.empty() && line.back() == '{';
    if (isFunctionDefinition || (!line.empty() && line.back() == ';')) inDefinitionHead = false;

    // Rewrite `name(&instance->mem, ` for every load/store on the line.
    size_t cursor = 0;
    while (true) {
      size_t hit = line.find(memoryArg, cursor);
      if (hit == std::string_view::npos) break;
      size_t nameStart = hit;
      while (nameStart > 0 && isIdentifierChar(line[nameStart - 1])) --nameStart;
      std::string_view name = line.substr(nameStart, hit - nameStart);
      out.append(line.substr(cursor, hit - cursor));
      if (helpersEmitted && isLoadOrStoreName(name)) {
        out += "_at_base(";
        out += kBaseLocal;
        out += ", ";
      } else {
        out.append(memoryArg);
      }
      cursor = hit + memoryArg.size();
    }
    out.append(line.substr(cursor));
    out += '\n';
    if (isFunctionDefinition) out += baseDecl;
  }
  if (!helpersEmitted) return false;
  if (!cSource.empty() && cSource.back() != '\n') out.pop_back();
  cSource = std::move(out);
  return true;
}

}  // namespace synergy::granule

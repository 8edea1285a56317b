//===- ImportedFunctionReferences.cpp - table entries of imports -----------===//
//
// See ImportedFunctionReferences.h for why. wasm2c 1.0.32 writes an element
// record as one line, `  {TYPE, (wasm_rt_function_ptr_t)FUNCTION, OFFSET},`,
// with OFFSET `0` for the module's functions and `offsetof(...)` for
// imports, and computes a new entry's instance as one expression inside
// funcref_table_init.
//
//===----------------------------------------------------------------------===//
#include "granule/ImportedFunctionReferences.h"

#include <string_view>

namespace synergy::granule {

namespace {

constexpr const char* kMarkDefinition =
    "#define SYNERGY_IMPORTED_INSTANCE ((size_t)1 << (sizeof(size_t) * 8 - 1))\n";
constexpr const char* kHelper = "static inline void funcref_table_init(";
constexpr const char* kEntryInstance = "(char*)module_instance + src_expr->module_offset}";
constexpr const char* kResolvedInstance =
    "((src_expr->module_offset & SYNERGY_IMPORTED_INSTANCE)\n"
    "            ? *(void**)((char*)module_instance +\n"
    "                        (src_expr->module_offset & ~SYNERGY_IMPORTED_INSTANCE))\n"
    "            : (char*)module_instance + src_expr->module_offset)}";
constexpr const char* kRecordStart = "  {";
constexpr const char* kRecordFunction = ", (wasm_rt_function_ptr_t)";
constexpr const char* kImportOffset = ", offsetof(";
constexpr const char* kMarkedImportOffset = ", SYNERGY_IMPORTED_INSTANCE | offsetof(";

// Marks the offset of every imported function's element record.
std::string markImportRecords(const std::string& source) {
  std::string out;
  out.reserve(source.size() + 4096);
  size_t lineStart = 0;
  while (lineStart < source.size()) {
    size_t lineEnd = source.find('\n', lineStart);
    if (lineEnd == std::string::npos) lineEnd = source.size();
    std::string_view line(source.data() + lineStart, lineEnd - lineStart);
    size_t offset = line.find(kImportOffset);
    if (line.starts_with(kRecordStart) && line.find(kRecordFunction) != std::string_view::npos &&
        offset != std::string_view::npos) {
      out.append(line.substr(0, offset));
      out.append(kMarkedImportOffset);
      out.append(line.substr(offset + std::string_view(kImportOffset).size()));
    } else {
      out.append(line);
    }
    if (lineEnd < source.size()) out.push_back('\n');
    lineStart = lineEnd + 1;
  }
  return out;
}

}  // namespace

bool resolveImportedFunctionReferences(std::string& cSource) {
  size_t helper = cSource.find(kHelper);
  if (helper == std::string::npos) return true;
  size_t entry = cSource.find(kEntryInstance, helper);
  if (entry == std::string::npos ||
      cSource.find(kEntryInstance, entry + 1) != std::string::npos)
    return false;
  cSource.replace(entry, std::string_view(kEntryInstance).size(), kResolvedInstance);
  cSource.insert(helper, kMarkDefinition);
  cSource = markImportRecords(cSource);
  return true;
}

}  // namespace synergy::granule

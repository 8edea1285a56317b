//===- NameSectionRewriter.cpp - debug names in our own mangling -----------===//
//
// This file implements rewriteNamesForWasm2c. Non-custom sections are copied
// byte for byte; the rebuilt name section keeps its position, because wabt
// reads it against the function and global counts declared before it. The
// mangling matches what wasm2c itself does to a name (non-identifier bytes
// become `_`), so trap reports name the same functions as before.
//
//===----------------------------------------------------------------------===//
#include "granule/NameSectionRewriter.h"

#include <cstdint>
#include <unordered_set>

#include "wasmformat/WasmBinaryReader.h"

namespace synergy::granule {
namespace {

using wasmformat::WasmBinaryReader;

constexpr size_t kMaxMangledNameBytes = 256;
constexpr uint8_t kFunctionNames = 1;
constexpr uint8_t kGlobalNames = 7;
constexpr uint8_t kImportSection = 2;

void appendU32(std::string& out, uint32_t value) {
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out += char(value ? byte | 0x80 : byte);
  } while (value);
}

void appendName(std::string& out, std::string_view name) {
  appendU32(out, uint32_t(name.size()));
  out += name;
}

std::string mangle(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size() && i < kMaxMangledNameBytes; ++i) {
    unsigned char c = name[i];
    bool identifierByte = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '_';
    out += identifierByte ? char(c) : '_';
  }
  return out;
}

// A name map from `firstIndex` on, with every name mangled, made unique
// among all names in `used` (functions and globals share wasm2c's identifier
// space, and wasm2c's own renaming of collisions is not to be relied on),
// and empty ones dropped. The map was checked well formed; a read failure
// only ends it early.
std::string mangledNameMap(std::string_view body, uint32_t firstIndex,
                           std::unordered_set<std::string>& used) {
  WasmBinaryReader reader(body);
  uint32_t count;
  if (!reader.readU32(count)) return {};
  std::string entries;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t index;
    std::string_view name;
    if (!reader.readU32(index) || !reader.readName(name)) break;
    if (index < firstIndex) continue;
    std::string mangled = mangle(name);
    if (mangled.empty()) continue;
    while (!used.insert(mangled).second) mangled += "_" + std::to_string(index);
    appendU32(entries, index);
    appendName(entries, mangled);
    ++kept;
  }
  std::string map;
  appendU32(map, kept);
  return map + entries;
}

// The number of imported functions, which come first in the function index
// space. The import section was checked well formed.
uint32_t countFunctionImports(std::string_view body) {
  WasmBinaryReader reader(body);
  uint32_t count, functions = 0;
  if (!reader.readU32(count)) return 0;
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view module, field;
    uint8_t kind;
    wasmformat::Limits limits;
    if (!reader.readName(module) || !reader.readName(field) || !reader.readByte(kind) ||
        !reader.readImportDescriptor(kind, limits))
      break;
    if (kind == wasmformat::kFunctionImport) ++functions;
  }
  return functions;
}

// Imported functions lose their debug names: wasm2c names them after the
// import, and 1.0.32 emits C that does not compile when an imported
// function's debug name collides with any other name.
std::string rebuiltNameSection(WasmBinaryReader& reader, uint32_t functionImports) {
  std::string payload;
  appendName(payload, "name");
  std::unordered_set<std::string> used;
  while (!reader.atEnd()) {
    uint8_t id;
    uint32_t size;
    std::string_view body;
    if (!reader.readByte(id) || !reader.readU32(size) || !reader.readBytes(size, body)) break;
    if (id != kFunctionNames && id != kGlobalNames) continue;
    std::string map = mangledNameMap(body, id == kFunctionNames ? functionImports : 0, used);
    payload += char(id);
    appendU32(payload, uint32_t(map.size()));
    payload += map;
  }
  std::string section(1, '\0');
  appendU32(section, uint32_t(payload.size()));
  return section + payload;
}

}  // namespace

std::string rewriteNamesForWasm2c(std::string_view module) {
  constexpr size_t kHeaderBytes = 8;
  if (module.size() < kHeaderBytes) return std::string(module);
  std::string out(module.substr(0, kHeaderBytes));
  out.reserve(module.size());
  WasmBinaryReader reader(module.substr(kHeaderBytes));
  uint32_t functionImports = 0;
  while (!reader.atEnd()) {
    size_t start = reader.offset();
    uint8_t id;
    uint32_t size;
    std::string_view body;
    if (!reader.readByte(id) || !reader.readU32(size) || !reader.readBytes(size, body)) break;
    if (id == kImportSection) functionImports = countFunctionImports(body);
    if (id != 0) {
      out += module.substr(kHeaderBytes + start, reader.offset() - start);
      continue;
    }
    WasmBinaryReader custom(body);
    std::string_view name;
    if (custom.readName(name) && name == "name")
      out += rebuiltNameSection(custom, functionImports);
  }
  return out;
}

}  // namespace synergy::granule

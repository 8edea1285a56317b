//===- NameSectionRewriter.cpp - debug names in our own mangling -----------===//
//
// This file implements rewriteNamesForWasm2c. Non-custom sections are copied
// byte for byte; the rebuilt name section keeps its position, because wabt
// reads it against the function and global counts declared before it. The
// mangling matches what wasm2c itself does to a name (non-identifier bytes
// become `_`), so trap reports name the same functions as before; wasm2c then
// makes colliding names unique with its own suffixes.
//
//===----------------------------------------------------------------------===//
#include "granule/NameSectionRewriter.h"

#include <cstdint>

#include "granule/WasmBinaryReader.h"

namespace synergy::granule {
namespace {

constexpr size_t kMaxMangledNameBytes = 256;
constexpr uint8_t kFunctionNames = 1;
constexpr uint8_t kGlobalNames = 7;

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

// A name map with every name mangled and empty ones dropped. The map was
// checked well formed; a read failure only ends it early.
std::string mangledNameMap(std::string_view body) {
  WasmBinaryReader reader(body);
  uint32_t count;
  if (!reader.readU32(count)) return {};
  std::string entries;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t index;
    std::string_view name;
    if (!reader.readU32(index) || !reader.readName(name)) break;
    std::string mangled = mangle(name);
    if (mangled.empty()) continue;
    appendU32(entries, index);
    appendName(entries, mangled);
    ++kept;
  }
  std::string map;
  appendU32(map, kept);
  return map + entries;
}

std::string rebuiltNameSection(WasmBinaryReader& reader) {
  std::string payload;
  appendName(payload, "name");
  while (!reader.atEnd()) {
    uint8_t id;
    uint32_t size;
    std::string_view body;
    if (!reader.readByte(id) || !reader.readU32(size) || !reader.readBytes(size, body)) break;
    if (id != kFunctionNames && id != kGlobalNames) continue;
    std::string map = mangledNameMap(body);
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
  while (!reader.atEnd()) {
    size_t start = reader.offset();
    uint8_t id;
    uint32_t size;
    std::string_view body;
    if (!reader.readByte(id) || !reader.readU32(size) || !reader.readBytes(size, body)) break;
    if (id != 0) {
      out += module.substr(kHeaderBytes + start, reader.offset() - start);
      continue;
    }
    WasmBinaryReader custom(body);
    std::string_view name;
    if (custom.readName(name) && name == "name") out += rebuiltNameSection(custom);
  }
  return out;
}

}  // namespace synergy::granule

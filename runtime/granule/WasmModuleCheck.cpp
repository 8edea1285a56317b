//===- WasmModuleCheck.cpp - the trust boundary for .wasm input ------------===//
//
// This file implements checkWasmModule: one linear walk over the module that
// reads only what it needs and bounds every read by the enclosing length.
// Sections are skipped by their length except the import and export sections,
// whose names wasm2c copies into C comments, and the "name" custom section,
// whose function and global maps rewriteNamesForWasm2c later rebuilds and so
// must be well formed. Nothing here allocates in proportion to the input: the
// only strings built are the error message, whose quoted name is truncated.
//
// The allowed name characters are deliberately fewer than C identifiers plus
// the punctuation toolchains use: no quote, backslash, slash, star, newline or
// other control byte can reach a comment, a string literal or a preprocessor
// line of the generated C, whatever wasm2c does with the name.
//
//===----------------------------------------------------------------------===//
#include "granule/WasmModuleCheck.h"

#include <cstdint>

#include "wasmformat/WasmBinaryReader.h"
#include "util/PrintableText.h"

namespace synergy::granule {
namespace {

using wasmformat::WasmBinaryReader;

constexpr size_t kMaxInterfaceNameBytes = 1024;
// Shown in diagnostics; longer names are cut with "...".
constexpr size_t kMaxQuotedNameBytes = 48;

constexpr uint8_t kCustomSection = 0;
constexpr uint8_t kImportSection = 2;
constexpr uint8_t kExportSection = 7;
constexpr uint8_t kDataCountSection = 12;

constexpr uint8_t kFunctionNames = 1;
constexpr uint8_t kGlobalNames = 7;

bool isSafeNameByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$' || c == '-';
}

// Position of a known section id in the order the spec requires (the data
// count section sits between element and code), or 0 for an unknown id.
int sectionRank(uint8_t id) {
  if (id >= 1 && id <= 9) return id;
  if (id == kDataCountSection) return 10;
  if (id == 10 || id == 11) return id + 1;
  return 0;
}

// The name in double quotes, printable ASCII as is, everything else escaped,
// so the diagnostic stays one line whatever the name holds.
std::string quoteName(std::string_view name) {
  std::string shown = "\"" + util::printableText(name.substr(0, kMaxQuotedNameBytes), "\"\\");
  if (name.size() > kMaxQuotedNameBytes) shown += "...";
  return shown + "\"";
}

std::string describeByte(unsigned char c) {
  if (c > 0x20 && c < 0x7f) return std::string("'") + char(c) + "'";
  return "byte 0x" + util::hexDigits({&c, 1});
}

// "import name" / "export name" problems, or nullopt when `name` is safe.
std::optional<std::string> checkInterfaceName(std::string_view what, std::string_view name) {
  if (name.empty()) return std::string(what) + " is empty";
  if (name.size() > kMaxInterfaceNameBytes)
    return std::string(what) + " " + quoteName(name) + " is longer than " +
           std::to_string(kMaxInterfaceNameBytes) + " bytes";
  for (unsigned char c : name)
    if (!isSafeNameByte(c))
      return std::string(what) + " " + quoteName(name) + " contains " + describeByte(c) +
             "; names may hold only letters, digits and _ . $ -";
  return std::nullopt;
}

std::string atOffset(size_t offset) { return " at offset " + std::to_string(offset); }

std::optional<std::string> checkImports(std::string_view body, size_t base) {
  WasmBinaryReader reader(body);
  uint32_t count;
  if (!reader.readU32(count)) return "malformed import section" + atOffset(base);
  for (uint32_t i = 0; i < count; ++i) {
    size_t entryOffset = base + reader.offset();
    std::string_view module, field;
    if (!reader.readName(module) || !reader.readName(field))
      return "malformed import entry" + atOffset(entryOffset);
    if (auto problem = checkInterfaceName("import module name", module)) return problem;
    if (auto problem = checkInterfaceName("import name", field))
      return *problem + " (in module " + quoteName(module) + ")";
    uint8_t kind;
    wasmformat::Limits limits;
    if (!reader.readByte(kind) || !reader.readImportDescriptor(kind, limits))
      return "malformed import entry" + atOffset(entryOffset) + " (" + reader.problem() + ")";
  }
  if (!reader.atEnd()) return "import section has trailing bytes" + atOffset(base);
  return std::nullopt;
}

std::optional<std::string> checkExports(std::string_view body, size_t base) {
  WasmBinaryReader reader(body);
  uint32_t count;
  if (!reader.readU32(count)) return "malformed export section" + atOffset(base);
  for (uint32_t i = 0; i < count; ++i) {
    size_t entryOffset = base + reader.offset();
    std::string_view name;
    uint8_t kind;
    uint32_t index;
    if (!reader.readName(name) || !reader.readByte(kind) || kind > 4 || !reader.readU32(index))
      return "malformed export entry" + atOffset(entryOffset);
    if (auto problem = checkInterfaceName("export name", name)) return problem;
  }
  if (!reader.atEnd()) return "export section has trailing bytes" + atOffset(base);
  return std::nullopt;
}

bool isWellFormedNameMap(std::string_view body) {
  WasmBinaryReader reader(body);
  uint32_t count, index;
  std::string_view name;
  if (!reader.readU32(count)) return false;
  for (uint32_t i = 0; i < count; ++i)
    if (!reader.readU32(index) || !reader.readName(name)) return false;
  return reader.atEnd();
}

// The "name" section: subsections in increasing id order, each inside the
// section; the function and global maps, which are kept, fully well formed.
std::optional<std::string> checkNameSection(WasmBinaryReader& reader, size_t base) {
  int previousId = -1;
  while (!reader.atEnd()) {
    size_t subsectionOffset = base + reader.offset();
    uint8_t id;
    uint32_t size;
    std::string_view body;
    if (!reader.readByte(id) || !reader.readU32(size) || !reader.readBytes(size, body))
      return "malformed \"name\" section" + atOffset(subsectionOffset);
    if (int(id) <= previousId)
      return "\"name\" section subsections out of order" + atOffset(subsectionOffset);
    previousId = id;
    if ((id == kFunctionNames || id == kGlobalNames) && !isWellFormedNameMap(body))
      return "malformed \"name\" section" + atOffset(subsectionOffset);
  }
  return std::nullopt;
}

}  // namespace

bool isSafeInterfaceName(std::string_view name) {
  return !checkInterfaceName("", name).has_value();
}

std::optional<std::string> checkWasmModule(std::string_view bytes) {
  static constexpr char kMagic[] = {'\0', 'a', 's', 'm'};
  static constexpr char kVersion[] = {1, 0, 0, 0};
  if (bytes.size() < 4 || bytes.substr(0, 4) != std::string_view(kMagic, 4))
    return "not a wasm module (bad magic number)";
  if (bytes.size() < 8) return "truncated wasm module (no version)";
  if (bytes.substr(4, 4) != std::string_view(kVersion, 4)) return "unsupported wasm version";

  WasmBinaryReader reader(bytes.substr(8));
  int previousRank = 0;
  bool sawNameSection = false;
  while (!reader.atEnd()) {
    size_t sectionOffset = 8 + reader.offset();
    uint8_t id;
    uint32_t size;
    std::string_view body;
    if (!reader.readByte(id) || !reader.readU32(size) || !reader.readBytes(size, body))
      return "truncated wasm module (section at offset " + std::to_string(sectionOffset) +
             " runs past the end of the file)";
    size_t bodyOffset = 8 + reader.offset() - body.size();
    if (id == kCustomSection) {
      WasmBinaryReader custom(body);
      std::string_view name;
      if (!custom.readName(name)) return "malformed custom section" + atOffset(sectionOffset);
      if (name != "name") continue;
      if (sawNameSection) return "more than one \"name\" section" + atOffset(sectionOffset);
      sawNameSection = true;
      if (auto problem = checkNameSection(custom, bodyOffset)) return problem;
      continue;
    }
    int rank = sectionRank(id);
    if (rank == 0)
      return "unknown section id " + std::to_string(id) + atOffset(sectionOffset);
    if (rank <= previousRank)
      return "section id " + std::to_string(id) + " out of order or repeated" +
             atOffset(sectionOffset);
    previousRank = rank;
    if (id == kImportSection) {
      if (auto problem = checkImports(body, bodyOffset)) return problem;
    } else if (id == kExportSection) {
      if (auto problem = checkExports(body, bodyOffset)) return problem;
    }
  }
  return std::nullopt;
}

bool importsNameStartingWith(std::string_view bytes, std::string_view module,
                              std::string_view prefix) {
  if (checkWasmModule(bytes)) return false;
  WasmBinaryReader reader(bytes.substr(8));
  while (!reader.atEnd()) {
    uint8_t id;
    uint32_t size;
    std::string_view body;
    if (!reader.readByte(id) || !reader.readU32(size) || !reader.readBytes(size, body))
      return false;
    if (id != kImportSection) continue;
    WasmBinaryReader imports(body);
    uint32_t count;
    if (!imports.readU32(count)) return false;
    for (uint32_t i = 0; i < count; ++i) {
      std::string_view importModule, importField;
      uint8_t kind;
      wasmformat::Limits limits;
      if (!imports.readName(importModule) || !imports.readName(importField) ||
          !imports.readByte(kind) || !imports.readImportDescriptor(kind, limits))
        return false;
      if (importModule == module && importField.substr(0, prefix.size()) == prefix) return true;
    }
    return false;
  }
  return false;
}

}  // namespace synergy::granule

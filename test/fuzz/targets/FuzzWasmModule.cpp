//===- FuzzWasmModule.cpp - libFuzzer target for the .wasm loader check ---===//
//
// This file implements the fuzz target for granule::checkWasmModule, the gate
// synergy-run puts in front of every tool (wasm2c, clang) that a .wasm file
// reaches: it checks the framing, the section order and every import, export
// and debug name that could end up in generated C. Any byte string must give
// either acceptance or a refusal, never a crash, undefined behaviour, a leak
// or an allocation sized by the input.
//
// Beyond the sanitizers, the target checks the contract: a refusal is a
// non-empty one-line reason (synergy-run prints it after "error: "), and an
// accepted module's import and export names are all safe to write into C,
// which the target verifies with its own independent walk of those two
// sections.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "granule/WasmModuleCheck.h"

namespace {

[[noreturn]] void contractViolated(const char* what, std::string_view detail) {
  std::fprintf(stderr, "checkWasmModule: %s: '%.*s'\n", what, int(detail.size()), detail.data());
  std::abort();
}

// A second, deliberately separate reading of the fields the check vouches
// for, so the target does not trust the checker's own reader.
class IndependentReader {
 public:
  explicit IndependentReader(std::string_view bytes) : bytes_(bytes) {}

  bool done() const { return at_ == bytes_.size(); }

  bool byte(uint8_t& out) {
    if (at_ == bytes_.size()) return false;
    out = uint8_t(bytes_[at_++]);
    return true;
  }

  bool u32(uint32_t& out) {
    uint64_t value = 0;
    if (!leb(5, value) || value > UINT32_MAX) return false;
    out = uint32_t(value);
    return true;
  }

  // An unsigned LEB128 of at most `maxBytes` bytes (5 for u32, 10 for u64),
  // without checking the unused bits of the last byte.
  bool leb(unsigned maxBytes, uint64_t& out) {
    uint64_t value = 0;
    for (unsigned i = 0; i < maxBytes; ++i) {
      uint8_t b;
      if (!byte(b)) return false;
      value |= uint64_t(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        out = value;
        return true;
      }
    }
    return false;
  }

  bool bytes(uint32_t size, std::string_view& out) {
    if (size > bytes_.size() - at_) return false;
    out = bytes_.substr(at_, size);
    at_ += size;
    return true;
  }

  bool name(std::string_view& out) {
    uint32_t size;
    return u32(size) && bytes(size, out);
  }

  // Limits: flag 1 says a maximum follows, flag 4 (memory64, table64) that
  // both are 64-bit.
  bool limits() {
    uint8_t flags;
    uint64_t value;
    if (!byte(flags)) return false;
    unsigned maxBytes = (flags & 4) ? 10 : 5;
    return leb(maxBytes, value) && ((flags & 1) == 0 || leb(maxBytes, value));
  }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

// Names that reach generated C must be 1 to 1024 letters, digits, _ . $ -.
void requireSafeName(std::string_view name) {
  if (name.empty() || name.size() > 1024) contractViolated("accepted a bad name length", name);
  for (unsigned char c : name) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.' || c == '$' || c == '-';
    if (!safe) contractViolated("accepted an unsafe name", name);
  }
}

void requireSafeImports(std::string_view body) {
  IndependentReader reader(body);
  uint32_t count;
  if (!reader.u32(count)) contractViolated("accepted a malformed import section", "");
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view module, field;
    uint8_t kind, type;
    uint32_t index;
    if (!reader.name(module) || !reader.name(field) || !reader.byte(kind))
      contractViolated("accepted a malformed import entry", "");
    requireSafeName(module);
    requireSafeName(field);
    bool described = (kind == 0 && reader.u32(index)) ||
                     (kind == 1 && reader.byte(type) && (type == 0x70 || type == 0x6f) &&
                      reader.limits()) ||
                     (kind == 2 && reader.limits()) ||
                     (kind == 3 && reader.byte(type) && reader.byte(type)) ||
                     (kind == 4 && reader.byte(type) && reader.u32(index));
    if (!described) contractViolated("accepted a malformed import entry", field);
  }
}

void requireSafeExports(std::string_view body) {
  IndependentReader reader(body);
  uint32_t count;
  if (!reader.u32(count)) contractViolated("accepted a malformed export section", "");
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view name;
    uint8_t kind;
    uint32_t index;
    if (!reader.name(name) || !reader.byte(kind) || !reader.u32(index))
      contractViolated("accepted a malformed export entry", "");
    requireSafeName(name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto refusal = synergy::granule::checkWasmModule(bytes)) {
    if (refusal->empty() || refusal->find('\n') != std::string::npos)
      contractViolated("refused without a one-line reason", *refusal);
    return 0;
  }
  IndependentReader module(bytes.size() < 8 ? std::string_view() : bytes.substr(8));
  while (!module.done()) {
    uint8_t id;
    uint32_t length;
    std::string_view body;
    if (!module.byte(id) || !module.u32(length) || !module.bytes(length, body))
      contractViolated("accepted a module whose sections run past its end", "");
    if (id == 2) requireSafeImports(body);
    if (id == 7) requireSafeExports(body);
  }
  return 0;
}

//===- FuzzEmittedVerilog.cpp - libFuzzer target for the Verilog gate -----===//
//
// This file implements the fuzz target for engine::checkEmittedVerilog, the
// allow-list that stands between the Verilog text of an untrusted .eng file
// and Verilator, which would turn parts of it into host C++. Any text must
// give either acceptance or a refusal, never a crash, undefined behaviour, a
// leak or an allocation sized by the input.
//
// Beyond the sanitizers, the target checks the contract: a refusal is a
// non-empty one-line reason, and accepted text holds the emitted module,
// `module synergy_engine` through `endmodule`, where the two words of the
// head may be parted by any run of the blanks and newlines the check takes
// (it refuses comments and every other white space).
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/EmittedVerilogCheck.h"

namespace {

// Whether `text` holds "module", one or more ' ' or '\n', then "synergy_engine".
bool holdsEngineModuleHead(std::string_view text) {
  constexpr std::string_view kModule = "module", kName = "synergy_engine";
  for (size_t at = text.find(kModule); at != std::string_view::npos;
       at = text.find(kModule, at + 1)) {
    size_t name = at + kModule.size();
    while (name < text.size() && (text[name] == ' ' || text[name] == '\n')) ++name;
    if (name > at + kModule.size() && text.substr(name, kName.size()) == kName) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view verilog(reinterpret_cast<const char*>(data), size);
  auto refusal = synergy::engine::checkEmittedVerilog(verilog);
  if (refusal && (refusal->empty() || refusal->find('\n') != std::string::npos)) {
    std::fprintf(stderr, "checkEmittedVerilog refused without a one-line reason: '%s'\n",
                 refusal->c_str());
    std::abort();
  }
  if (!refusal && (!holdsEngineModuleHead(verilog) ||
                   verilog.find("endmodule") == std::string_view::npos)) {
    std::fprintf(stderr, "checkEmittedVerilog accepted text without the emitted module\n");
    std::abort();
  }
  return 0;
}

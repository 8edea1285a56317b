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
// `module synergy_engine` through `endmodule`.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/EmittedVerilogCheck.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view verilog(reinterpret_cast<const char*>(data), size);
  auto refusal = synergy::engine::checkEmittedVerilog(verilog);
  if (refusal && (refusal->empty() || refusal->find('\n') != std::string::npos)) {
    std::fprintf(stderr, "checkEmittedVerilog refused without a one-line reason: '%s'\n",
                 refusal->c_str());
    std::abort();
  }
  if (!refusal && (verilog.find("module synergy_engine") == std::string_view::npos ||
                   verilog.find("endmodule") == std::string_view::npos)) {
    std::fprintf(stderr, "checkEmittedVerilog accepted text without the emitted module\n");
    std::abort();
  }
  return 0;
}

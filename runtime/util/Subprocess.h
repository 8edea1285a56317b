//===- Subprocess.h - run external tools -----------------------------------===//
//
// The toolchain drives clang, wasm2c, iverilog and verilator as child
// processes. Arguments go straight to execvp, never through a shell, so file
// names with spaces or quotes cannot change a command.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace synergy::util {

struct ProcessResult {
  int exitCode = -1;   // -1 when the tool could not be started or was killed
  std::string output;  // stdout and stderr, interleaved, when captured
};

// Runs argv[0] (looked up in PATH) with argv. When captureOutput is false the
// child inherits stdout/stderr.
ProcessResult runProcess(const std::vector<std::string>& argv, bool captureOutput = true);

}  // namespace synergy::util

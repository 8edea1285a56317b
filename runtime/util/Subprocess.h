//===- Subprocess.h - run external tools -----------------------------------===//
//
// The toolchain drives clang, wasm2c, iverilog and verilator as child
// processes. Arguments go straight to the program, never through a shell, so
// file names with spaces or quotes cannot change a command.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace synergy::util {

struct ProcessOptions {
  // When false the child inherits stdin, stdout and stderr, so its output and
  // diagnostics (colours included) reach the terminal untouched.
  bool captureOutput = true;
  // With captureOutput, whether stdout is captured too; when false only
  // stderr is, and stdout stays the parent's.
  bool captureStdout = true;
  // The program to start, as a path; argv[0] is then only the name the child
  // sees (clang names itself after it in its messages). When empty, argv[0] is
  // the program, looked up in PATH.
  std::string executable;
};

struct ProcessResult {
  int exitCode = -1;   // -1 when the tool could not be started, was killed or was lost
  int startError = 0;  // the errno that kept it from starting
  int waitError = 0;   // the errno that made waiting for it fail
  int signal = 0;      // the signal that killed it
  std::string output;  // stdout and stderr, interleaved, when captured; or why
                       // the tool could not be started
};

// Runs the tool `options` name with `argv` and waits for it.
ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options);

// Runs argv[0] (looked up in PATH) with argv. When captureOutput is false the
// child inherits stdin, stdout and stderr.
ProcessResult runProcess(const std::vector<std::string>& argv, bool captureOutput = true);

}  // namespace synergy::util

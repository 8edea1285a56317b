//===- ToolProcess.cpp - run clang and print command lines -----------------===//
//
// The program path is given apart from argv, so argv[0] can differ from it:
// that is how clang learns to call itself synergy-cc in its messages.
//
//===----------------------------------------------------------------------===//
#include "frontends/c/ToolProcess.h"

#include "util/Subprocess.h"

#include <cstring>
#include <iostream>

namespace synergy::frontend_c {

static int exitCodeOf(const ToolCommand& command, const util::ProcessResult& result,
                      std::string& error) {
  if (result.startError != 0) {
    error = "cannot run '" + command.program + "': " + std::strerror(result.startError);
    return 1;
  }
  if (result.waitError != 0) {
    error = "lost track of '" + command.program + "': " + std::strerror(result.waitError);
    return 1;
  }
  if (result.exitCode >= 0) return result.exitCode;
  error = "'" + command.program + "' was killed by signal " + std::to_string(result.signal);
  return 1;
}

int runToolCommand(const ToolCommand& command, std::string& error) {
  util::ProcessOptions options;
  options.captureOutput = false;
  options.executable = command.program;
  return exitCodeOf(command, util::runProcess(command.argv, options), error);
}

int runToolCommand(const ToolCommand& command,
                   const std::function<std::string(const std::string&)>& rewriteMessages,
                   std::string& error) {
  util::ProcessOptions options;
  options.captureStdout = false;
  options.executable = command.program;
  util::ProcessResult result = util::runProcess(command.argv, options);
  if (result.startError == 0) std::cerr << rewriteMessages(result.output) << std::flush;
  return exitCodeOf(command, result, error);
}

void printToolCommand(std::ostream& out, const ToolCommand& command) {
  out << " \"" << command.program << '"';
  for (size_t i = 1; i < command.argv.size(); ++i) {
    out << " \"";
    for (char c : command.argv[i]) {
      if (c == '"' || c == '\\' || c == '$') out << '\\';
      out << c;
    }
    out << '"';
  }
  out << '\n';
}

}  // namespace synergy::frontend_c

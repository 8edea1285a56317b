//===- ToolProcess.cpp - run clang and print command lines -----------------===//
//
// posix_spawn lets argv[0] differ from the program path, which is how clang
// learns to call itself synergy-cc in its messages.
//
//===----------------------------------------------------------------------===//
#include "frontends/c/ToolProcess.h"

#include <cerrno>
#include <cstring>
#include <ostream>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace synergy::frontend_c {

int runToolCommand(const ToolCommand& command, std::string& error) {
  std::vector<char*> argv;
  for (const std::string& word : command.argv) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  pid_t child = 0;
  int spawnError =
      posix_spawn(&child, command.program.c_str(), nullptr, nullptr, argv.data(), environ);
  if (spawnError != 0) {
    error = "cannot run '" + command.program + "': " + std::strerror(spawnError);
    return 1;
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      error = "lost track of '" + command.program + "': " + std::strerror(errno);
      return 1;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  error = "'" + command.program + "' was killed by signal " +
          std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return 1;
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

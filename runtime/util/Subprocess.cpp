//===- Subprocess.cpp - run external tools ---------------------------------===//
#include "util/Subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace synergy::util {

ProcessResult runProcess(const std::vector<std::string>& argv, bool captureOutput) {
  ProcessResult result;
  std::vector<char*> cargv;
  for (const auto& arg : argv) cargv.push_back(const_cast<char*>(arg.c_str()));
  cargv.push_back(nullptr);

  int pipeFds[2] = {-1, -1};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (captureOutput) {
    if (pipe2(pipeFds, O_CLOEXEC) != 0) {
      result.output = std::string("cannot create pipe: ") + std::strerror(errno);
      return result;
    }
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
  }
  pid_t pid = -1;
  int spawnError = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (captureOutput) close(pipeFds[1]);
  if (spawnError != 0) {
    if (captureOutput) close(pipeFds[0]);
    result.output = "cannot run " + argv[0] + ": " + std::strerror(spawnError);
    return result;
  }
  if (captureOutput) {
    char chunk[65536];
    ssize_t n;
    while ((n = read(pipeFds[0], chunk, sizeof chunk)) != 0) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      result.output.append(chunk, size_t(n));
    }
    close(pipeFds[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace synergy::util

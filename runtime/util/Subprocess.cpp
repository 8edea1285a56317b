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

ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  std::vector<char*> cargv;
  for (const auto& arg : argv) cargv.push_back(const_cast<char*>(arg.c_str()));
  cargv.push_back(nullptr);

  int pipeFds[2] = {-1, -1};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.captureOutput) {
    if (pipe2(pipeFds, O_CLOEXEC) != 0) {
      result.output = std::string("cannot create pipe: ") + std::strerror(errno);
      return result;
    }
    if (options.captureStdout) posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
  }
  // A tool inherits only its stdio: not the sockets of the process that
  // runs it (a daemon's listening socket or a peer's connection would stay
  // open as long as the tool runs, after that process has died).
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  const std::string& program = options.executable.empty() ? argv[0] : options.executable;
  pid_t pid = -1;
  int spawnError =
      options.executable.empty()
          ? posix_spawnp(&pid, program.c_str(), &actions, nullptr, cargv.data(), environ)
          : posix_spawn(&pid, program.c_str(), &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (options.captureOutput) close(pipeFds[1]);
  if (spawnError != 0) {
    if (options.captureOutput) close(pipeFds[0]);
    result.startError = spawnError;
    result.output = "cannot run " + program + ": " + std::strerror(spawnError);
    return result;
  }
  if (options.captureOutput) {
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
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.waitError = errno;
      return result;
    }
  }
  if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

ProcessResult runProcess(const std::vector<std::string>& argv, bool captureOutput) {
  ProcessOptions options;
  options.captureOutput = captureOutput;
  return runProcess(argv, options);
}

}  // namespace synergy::util

//===- DetachedEngineBuild.cpp - compiled engine built in a child process -===//
//
// The child reports over a pipe: one byte, 'y' with the object's path or 'n'
// with the error, then end of file. The parent reads it without blocking
// while the run goes on; a run that ends first closes its end and exits, and
// the child, which ignores SIGPIPE, finishes the build and the cache entry
// anyway, provided it holds a build slot by then: one still waiting for a
// slot, or for another build of the design, gives up with the run
// (EngineBuilder.h), so that runs which end leave no queue of builds. Both ends of the pipe are close-on-exec: the tools the child runs
// hold neither, so the end of file the parent waits for comes when the child
// itself exits.
//
//===----------------------------------------------------------------------===//
#include "engine/DetachedEngineBuild.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/EngineBuilder.h"

namespace synergy::engine {

// The child's stdio goes to /dev/null: the run's own stdout and stderr may be
// pipes whose reader waits for every writer to close them.
static void detachStdio() {
  int null = open("/dev/null", O_RDWR);
  if (null < 0)
    return;
  for (int fd = 0; fd <= 2; ++fd)
    dup2(null, fd);
  if (null > 2)
    close(null);
}

static void writeAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t wrote = write(fd, bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0)
      return;
    done += static_cast<size_t>(wrote);
  }
}

[[noreturn]] static void runBuildChild(const std::string& verilog, int reportFd, pid_t run) {
  setsid();
  signal(SIGPIPE, SIG_IGN);
  detachStdio();
  std::string error;
  std::optional<std::string> object = buildEngineSharedObject(verilog, error, /*waitWhileAlive=*/run);
  writeAll(reportFd, object ? "y" + *object : "n" + error);
  // _exit, not exit: the parent's stdio buffers and static objects are its
  // own, and must not be flushed or destroyed a second time here.
  _exit(object ? 0 : 1);
}

std::optional<DetachedEngineBuild> DetachedEngineBuild::start(const std::string& verilog, std::string& error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("cannot start the engine build: pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  pid_t run = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("cannot start the engine build: fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    close(fds[0]);
    runBuildChild(verilog, fds[1], run);
  }
  close(fds[1]);
  return DetachedEngineBuild(pid, fds[0]);
}

DetachedEngineBuild::DetachedEngineBuild(DetachedEngineBuild&& other) noexcept
    : pid_(other.pid_), reportFd_(other.reportFd_), report_(std::move(other.report_)), reported_(other.reported_) {
  other.reportFd_ = -1;
}

DetachedEngineBuild::~DetachedEngineBuild() {
  if (reportFd_ >= 0)
    close(reportFd_);
}

// Reads what the child has written; true once it has closed the pipe. The
// child is then done (or dead) and is reaped here.
bool DetachedEngineBuild::readReport(bool wait) {
  while (!reported_) {
    pollfd readable{reportFd_, POLLIN, 0};
    int ready = poll(&readable, 1, wait ? -1 : 0);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      return false;
    char buffer[4096];
    ssize_t got = read(reportFd_, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR)
      continue;
    if (got > 0) {
      report_.append(buffer, static_cast<size_t>(got));
      continue;
    }
    reported_ = true;
    close(reportFd_);
    reportFd_ = -1;
    waitpid(pid_, nullptr, 0);
  }
  return true;
}

bool DetachedEngineBuild::ready() {
  return readReport(/*wait=*/false);
}

DetachedEngineBuild::Result DetachedEngineBuild::take() {
  readReport(/*wait=*/true);
  Result result;
  if (!report_.empty() && report_[0] == 'y')
    result.object = report_.substr(1);
  else if (!report_.empty())
    result.error = report_.substr(1);
  else
    result.error = "the engine build stopped without a result";
  return result;
}

}  // namespace synergy::engine

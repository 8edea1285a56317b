//===- JobWorker.cpp - A job process started before its job ---------------===//
//
// This file implements JobWorker.h. The spare reads the whole message up to
// the daemon's end-of-file, bounded by kMaxWorkerCommandLineBytes, and then
// checks every count and length against the bytes it has.
//
//===----------------------------------------------------------------------===//
#include "cluster/JobWorker.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>

#include "util/LittleEndian.h"

namespace synergy::cluster {

namespace {

bool readLength(const std::string& in, size_t& offset, size_t& value) {
  if (in.size() - offset < 4) return false;
  value = 0;
  for (int i = 0; i < 4; ++i) value |= size_t(uint8_t(in[offset + i])) << (8 * i);
  offset += 4;
  return true;
}

}  // namespace

std::string encodeWorkerCommandLine(const std::vector<std::string>& arguments) {
  std::string out;
  util::appendLittleEndian(out, arguments.size(), 4);
  for (const std::string& argument : arguments) {
    util::appendLittleEndian(out, argument.size(), 4);
    out += argument;
  }
  return out;
}

bool receiveWorkerCommandLine(std::vector<std::string>& arguments, std::string& error) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) {
    error = "synergyd is gone";
    return false;
  }
  std::string message;
  char buffer[65536];
  for (;;) {
    ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    message.append(buffer, size_t(got));
    if (message.size() > kMaxWorkerCommandLineBytes) {
      error = "the job's command line is too long";
      return false;
    }
  }
  int devNull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devNull < 0 || dup2(devNull, STDIN_FILENO) < 0) {
    error = "cannot put /dev/null on stdin";
    return false;
  }
  close(devNull);
  size_t offset = 0, count = 0;
  if (message.empty()) {
    error = "synergyd closed without a job";
    return false;
  }
  if (!readLength(message, offset, count) || count > kMaxWorkerArguments) {
    error = "malformed job command line";
    return false;
  }
  arguments.clear();
  for (size_t i = 0; i < count; ++i) {
    size_t length = 0;
    if (!readLength(message, offset, length) || message.size() - offset < length) {
      error = "truncated job command line";
      return false;
    }
    arguments.push_back(message.substr(offset, length));
    offset += length;
    if (arguments.back().find('\0') != std::string::npos) {
      error = "a NUL byte in the job command line";
      return false;
    }
  }
  if (offset != message.size()) {
    error = "trailing bytes after the job command line";
    return false;
  }
  return true;
}

}  // namespace synergy::cluster

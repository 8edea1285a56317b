//===- JobWorker.h - A job process started before its job -----------------===//
//
// Starting a job's `synergy-run` costs an exec: loading and linking the
// runtime, about 8 ms of CPU here, and more wall time on a loaded host. So
// synergyd keeps one spare started ahead (`synergy-run
// --cluster-job-worker`, JobHost.h) that waits on its stdin, a socket only
// the daemon holds, for the command line of the next job, and then runs it
// exactly as if it had been started with it; the daemon starts the next
// spare when that job ends or 300 ms after it took this one (JobHost.cpp).
// The command line is length-prefixed and bounded:
//
//   u32 argument count, then per argument u32 length + bytes (no NUL)
//
// A spare dies with the daemon thread that started it (PR_SET_PDEATHSIG),
// so none outlives synergyd.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace synergy::cluster {

// synergy-run's only argument when it is started as a spare.
inline constexpr const char* kJobWorkerOption = "--cluster-job-worker";

// Limits of a command line a spare accepts.
constexpr size_t kMaxWorkerCommandLineBytes = 4 << 20;
constexpr size_t kMaxWorkerArguments = 16384;

// The message for `arguments` (without argv[0]).
std::string encodeWorkerCommandLine(const std::vector<std::string>& arguments);

// In the spare: waits for the command line on fd 0 until the daemon closes
// its end, then puts /dev/null on fd 0. False with a one-line `error` when
// the daemon went away first or the message is malformed.
bool receiveWorkerCommandLine(std::vector<std::string>& arguments, std::string& error);

}  // namespace synergy::cluster

//===- HostDeathHook.cpp - synergyd dies at a named step of a job's start -===//
//
// This file implements HostDeathHook.h.
//
//===----------------------------------------------------------------------===//
#include "cluster/HostDeathHook.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace synergy::cluster {

void dieIfTestLosesHostAt(const char* step) {
  static const char* const dieAt = std::getenv("SYNERGY_TEST_HOST_DIES_AT");
  if (dieAt && std::strcmp(dieAt, step) == 0) kill(getpid(), SIGKILL);
}

void dieIfTestLosesHostAfterCopy(uint64_t sequence) {
  static const char* const dieAt = std::getenv("SYNERGY_TEST_HOST_DIES_AT");
  if (!dieAt || "checkpoint-copied:" + std::to_string(sequence) != dieAt) return;
  // The daemon first, so that the client sees its host lost rather than
  // this part's exit by a signal.
  pid_t daemon = getppid();
  if (daemon > 1) kill(daemon, SIGKILL);
  kill(getpid(), SIGKILL);
}

}  // namespace synergy::cluster

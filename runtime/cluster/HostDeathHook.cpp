//===- HostDeathHook.cpp - synergyd dies at a named step of a job's start -===//
//
// This file implements HostDeathHook.h.
//
//===----------------------------------------------------------------------===//
#include "cluster/HostDeathHook.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace synergy::cluster {

void dieIfTestLosesHostAt(const char* step) {
  static const char* const dieAt = std::getenv("SYNERGY_TEST_HOST_DIES_AT");
  if (dieAt && std::strcmp(dieAt, step) == 0) kill(getpid(), SIGKILL);
}

}  // namespace synergy::cluster

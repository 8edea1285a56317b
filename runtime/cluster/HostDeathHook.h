//===- HostDeathHook.h - synergyd dies at a named step of a job's start ---===//
//
// A test hook, so that a test can lose a host at an exact step of a job's
// start instead of at a random time: with SYNERGY_TEST_HOST_DIES_AT=STEP in
// its environment, synergyd kills itself with SIGKILL (no cleanup, as a
// host that is lost) when a job reaches STEP on it:
//
//   run-job       a RunJob has arrived and nothing is started yet
//   module        the head of a module it asked for has arrived, the
//                 module's bytes behind it not yet read (so that the
//                 client's connection is reset rather than closed)
//   part-started  the job's process has been started
//
// Only test/cluster/checkpoint_cluster_test.py (case start-windows) sets it.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace synergy::cluster {

// Kills this process when SYNERGY_TEST_HOST_DIES_AT names `step`.
void dieIfTestLosesHostAt(const char* step);

}  // namespace synergy::cluster

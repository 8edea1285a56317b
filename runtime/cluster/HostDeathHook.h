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
// and, in the job part's process (which inherits the daemon's environment),
// at a step of a checkpoint, where it kills its daemon first (its job
// processes die with it) and then itself:
//
//   checkpoint-copied:N  part 0 of a job that was not resumed has had its
//                 checkpoint N acknowledged by the second holder (part 1 or
//                 the mirror daemon) and has not recorded it in the cluster
//                 state yet: the holder's file has moved on to N while the
//                 record still names the checkpoint before
//
// Only test/cluster/checkpoint_cluster_test.py (case start-windows) and
// cluster_test.py (case checkpoint-recovery-copy-window) set it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace synergy::cluster {

// Kills this process when SYNERGY_TEST_HOST_DIES_AT names `step`.
void dieIfTestLosesHostAt(const char* step);
// In a job part: kills the daemon that started it and then this process
// when SYNERGY_TEST_HOST_DIES_AT is "checkpoint-copied:<sequence>".
void dieIfTestLosesHostAfterCopy(uint64_t sequence);

}  // namespace synergy::cluster

//===- CheckpointedJob.h - an MPI job that checkpoints at barriers ----------===//
//
// `synergy-run -np N --checkpoint-every S [--checkpoint-dir D]`: runs the
// job of mpi::runJob with a CheckpointCoordinator on its barriers. With
// SYNERGY_CHECKPOINT_STATS=1 in the environment it prints, at the end, how
// many checkpoints were taken and skipped, their bytes and their time, and
// that time's parts: unwinds, section copies, background writes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>

#include "checkpoint/CheckpointCoordinator.h"
#include "mpi/MpiJob.h"
#include "sandbox/Grant.h"

namespace synergy::checkpoint {

// With SYNERGY_CHECKPOINT_STATS=1: the coordinator's counts on stderr.
void printCheckpointStatistics(CheckpointCoordinator& coordinator);

// A grant as a checkpoint records it: its host directory by its canonical
// absolute path (a host part's /proc/self/fd/N grant by the directory it
// is), so that --resume finds it from any working directory and process;
// the guest keeps the name it saw.
sandbox::Grant recordedGrant(sandbox::Grant grant);

// Whether SYNERGY_TEST_LIVE_MOVE=RANK[@N] is set, a test hook: at the job's
// control point N (1 when left out) rank RANK departs and arrives again
// in a fresh instance in this process (CheckpointCoordinator::setLiveMove),
// the drill of a move between hosts. runCheckpointedJob takes it; a job
// without --checkpoint-every runs there with checkpoints never due. With
// SYNERGY_LIVE_MOVE_STATS=1 the move's costs go to stderr; with
// SYNERGY_TEST_LIVE_MOVE_CORRUPT=1 its arrival fails (corrupt bytes).
// The hook's form for a job spread over hosts, R@N:P (CheckpointAgreement),
// is not this one: a job that runs on one host of such a daemon runs
// without it.
bool liveMoveRequested();

// Runs the job and returns its exit status (2, with a message, when the
// checkpoint directory or the program cannot be used).
int runCheckpointedJob(mpi::JobOptions job, const CheckpointPolicy& policy);

// `synergy-run --resume D`: runs the job of D's checkpoint (its program,
// arguments and rank count are in it) from that checkpoint on, each rank
// rewound into the barrier where it was taken, and returns its exit status.
// Refused with a message and status 2, before anything runs or any output file
// is touched, when the checkpoint is missing, corrupt or foreign, the program's
// bytes differ from the checkpointed one's, a recorded --dir grant's host
// directory no longer exists or is no longer a directory, an open file cannot
// be reopened below its grant (OpenFileRecord.h), or the job held state the
// checkpoint does not (a deleted open file, an MPI object it made). The resumed
// job gets exactly the checkpointed job's --dir grants (by their absolute host
// paths) and --env variables. Output already printed is not printed again:
// stdout and stderr, when they are regular files (opened with >>), are cut back
// to their offsets at the checkpoint; on a pipe, whatever the killed run
// printed after its last checkpoint cannot be taken back and appears twice.
// With `policy`, the resumed job goes on checkpointing (into D unless the
// policy names another directory).
int resumeCheckpointedJob(const std::string& directory, std::optional<CheckpointPolicy> policy,
                          mpi::JobOptions job);

// The checks of `--resume` that need nothing but the directory: D's
// checkpoint decoded, resumable, of the program at `programPath` (empty:
// the one it names), its grants still directories and its ranks' open
// files and MPI objects restorable. nullopt with the one-line `error`
// otherwise. Also what a cluster job's client and each host part check.
// With `fileBytes`, the file's bytes as read are left there too.
std::optional<CheckpointImage> readResumableCheckpoint(const std::string& directory,
                                                      const std::string& programPath,
                                                      std::string& error,
                                                      std::string* fileBytes = nullptr);
// readResumableCheckpoint of checkpoint `sequence` (0: whichever D holds)
// for a resumed part of a cluster job: D's file when it is that
// checkpoint, else the file it replaced, kept beside it as the spare
// (DurableReplace.h), when that one is. A holder stores a copy before part
// 0 records it in the cluster state (CheckpointHolders.h), so after a lost
// host D may hold the checkpoint after the recorded one, whose output the
// client has cut away. Any other file is refused with an `error` naming
// both numbers: the part resumes from no checkpoint but the recorded one.
std::optional<CheckpointImage> readRecordedCheckpoint(const std::string& directory,
                                                     const std::string& programPath,
                                                     uint64_t sequence, std::string& error,
                                                     std::string* fileBytes = nullptr);
// The same checks of a checkpoint file's `bytes` that came from elsewhere
// (a resumed part's, from part 0: cluster/CheckpointAgreement.h); `origin`
// names where in the errors.
std::optional<CheckpointImage> resumableCheckpoint(std::string bytes, const std::string& origin,
                                                  const std::string& programPath,
                                                  std::string& error);

}  // namespace synergy::checkpoint

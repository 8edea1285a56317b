//===- CheckpointedJob.cpp - an MPI job that checkpoints at barriers --------===//
//
// This file implements the launcher glue of CheckpointedJob.h: it checks
// the checkpoint directory, names the program by its digest, and puts the
// coordinator on the job's barriers.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointedJob.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/FileIO.h"
#include "util/Sha256.h"

namespace synergy::checkpoint {

namespace {

constexpr size_t kMaxProgramBytes = size_t(1) << 30;

int launchError(const std::string& message) {
  std::fprintf(stderr, "synergy-run: error: %s\n", message.c_str());
  return 2;
}

}  // namespace

int runCheckpointedJob(mpi::JobOptions job, const CheckpointPolicy& policy) {
  if (!policy.directory.empty()) {
    struct stat info;
    if (stat(policy.directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
      return launchError("--checkpoint-dir: no such directory: " + policy.directory);
  }
  std::string error;
  std::optional<std::string> program = util::readRegularFile(job.program, kMaxProgramBytes, error);
  if (!program) return launchError(error);
  util::Sha256 hash;
  hash.update(*program);
  CheckpointCoordinator coordinator(job.ranks, policy, hash.digest());
  job.barrierControlPoint = &coordinator;
  int status = mpi::runJob(job);
  if (const char* stats = std::getenv("SYNERGY_CHECKPOINT_STATS"); stats && std::strcmp(stats, "0")) {
    CheckpointStatistics totals = coordinator.statistics();
    std::fprintf(stderr,
                 "synergy-run: checkpoints: %llu taken, %llu skipped, %llu bytes written, "
                 "%.6f s\n",
                 (unsigned long long)totals.checkpoints, (unsigned long long)totals.postponed,
                 (unsigned long long)totals.bytesWritten, totals.seconds);
  }
  return status;
}

}  // namespace synergy::checkpoint

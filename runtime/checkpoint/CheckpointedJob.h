//===- CheckpointedJob.h - an MPI job that checkpoints at barriers ----------===//
//
// `synergy-run -np N --checkpoint-every S [--checkpoint-dir D]`: runs the
// job of mpi::runJob with a CheckpointCoordinator on its barriers. With
// SYNERGY_CHECKPOINT_STATS=1 in the environment it prints, at the end, how
// many checkpoints were taken and skipped, their bytes and their time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "checkpoint/CheckpointCoordinator.h"
#include "mpi/MpiJob.h"

namespace synergy::checkpoint {

// Runs the job and returns its exit status (2, with a message, when the
// checkpoint directory or the program cannot be used).
int runCheckpointedJob(mpi::JobOptions job, const CheckpointPolicy& policy);

}  // namespace synergy::checkpoint

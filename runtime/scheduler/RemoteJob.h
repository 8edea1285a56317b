//===- RemoteJob.h - Running an MPI job on a cluster host ------------------===//
//
// The client side of `synergy-run --cluster URL -np N`: queue the job in the
// cluster state, wait for its turn (FIFO), let the placement policy pick a
// host where all N ranks fit, take the slots atomically, and hand the job to
// that host's synergyd. The module travels by content hash: its bytes are
// sent only when the host asks for them. The client then prints the job's
// stdout and stderr as they arrive and returns its exit status. Ranks do not
// span hosts yet.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

#include "cluster/RedisConnection.h"

namespace synergy::scheduler {

struct RemoteJobOptions {
  cluster::StateUrl state;
  std::string tokenFile;
  std::string policy = "binpack";
  std::string program;  // the .wasm file
  // The guest's argv (argv[0] first) and environment ("KEY=VALUE").
  std::vector<std::string> arguments;
  std::vector<std::string> environment;
  unsigned ranks = 1;
  bool tagOutput = false;
};

// Runs the job and returns its exit status; problems before the job runs
// (bad token file, Redis or host unreachable, no host large enough, the host
// refusing) are printed as "synergy-run: error: ..." and return 2.
int runRemoteJob(const RemoteJobOptions& options);

}  // namespace synergy::scheduler

//===- RemoteJob.h - Running an MPI job on a cluster host ------------------===//
//
// The client side of `synergy-run --cluster URL -np N`: queue the job in the
// cluster state, wait for its turn (FIFO), let the placement policy pick the
// host or hosts of the N ranks, take the slots atomically, and hand each
// host's synergyd its part of the job (consecutive ranks; the parts then
// connect to each other, cluster/MpiPeerLink.h). The module travels by
// content hash: its bytes are sent only to hosts that ask for them. The
// client then prints the job's stdout and stderr as they arrive and returns
// its exit status; a part that fails or a host that is lost ends the job on
// every host.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

#include "cluster/RedisConnection.h"
#include "sandbox/Grant.h"

namespace synergy::scheduler {

struct RemoteJobOptions {
  cluster::StateUrl state;
  std::string tokenFile;
  std::string policy = "binpack";
  std::string program;  // the .wasm file
  // The guest's argv (argv[0] first) and environment ("KEY=VALUE").
  std::vector<std::string> arguments;
  std::vector<std::string> environment;
  // --dir grants as given; each host resolves relative ones from this
  // process's working directory, and checks them against its allow list.
  std::vector<sandbox::Grant> grants;
  unsigned ranks = 1;
  bool tagOutput = false;
};

// Runs the job and returns its exit status; problems before the job runs
// (bad token file, Redis or host unreachable, no host large enough, the host
// refusing) are printed as "synergy-run: error: ..." and return 2.
int runRemoteJob(const RemoteJobOptions& options);

}  // namespace synergy::scheduler

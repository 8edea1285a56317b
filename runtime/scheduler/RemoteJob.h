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

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/Migration.h"
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
  // A thread job (--threads-per-host): each part is one host's threads, so
  // no two parts may share a host. A placement that would put two on one
  // host waits, as one that does not fit does.
  bool onePartPerHost = false;
  bool tagOutput = false;
  // --checkpoint-every with --cluster: the job checkpoints into this
  // directory, absolute and the same on every host (empty: it does not),
  // and the client records where the parts' stdout went (OutputJournal.h).
  std::string checkpointDirectory;
  uint64_t checkpointIntervalMicroseconds = 0;
  std::string checkpointProgram;  // `program`, absolute, for --resume
  bool resume = false;            // set by resumeRemoteJob
  // A resumed job: the cluster job whose checkpoint it started from.
  uint64_t resumedJob = 0;
  // A resumed job: the checkpoint stdout was cut back to, which its parts
  // must resume from (0: whichever the directory holds, as for a move).
  uint64_t resumeSequence = 0;
  // The job this client started from the beginning (0: none yet, or a job
  // resumed by hand), which its restarts and moves carry: one of them that
  // finds no usable checkpoint starts the program again from the beginning,
  // stdout cut back to where that job's output began.
  uint64_t firstJob = 0;
  // Hosts this client lost, placed on no more, and how often it restarted.
  std::vector<std::string> excludedHosts;
  // The hosts one of which world rank 0's part must run on (empty: any),
  // in the record's order: a restart from a checkpoint only they hold
  // (synergyd --checkpoint-root), whose part 0 reads it from its own
  // directory and sends it to the others. Which one is chosen at placement
  // (PartZeroPin.h).
  std::vector<std::string> checkpointHolders;
  unsigned restarts = 0;
  // Migration (cluster/Migration.h); the job must checkpoint into a
  // directory, at an interval or only for this. `placement`: each part's
  // host and rank count in rank order instead of the policy's (a moved
  // job's restart); `fragment` K: its ranks cut over K hosts.
  cluster::HostCounts placement;
  unsigned fragment = 0;
  // Asked of the job once placed: SYNERGY_FORCE_MIGRATION's move, or its
  // consolidation on the fewest hosts from control point `consolidateAt`.
  std::optional<cluster::ForcedMigration> forcedMigration;
  uint64_t consolidateAt = 0;
  // Whether synergyd's background scheduler may move the job
  // (BackgroundScheduler.h) when it checkpoints into a directory: not the
  // restart of a --fragment/--consolidate-at or forced experiment, which
  // are not offered either. When the job last moved (ms since the epoch,
  // 0: never), for the scheduler's cool-down.
  bool backgroundMoves = true;
  int64_t movedAtMs = 0;
};

// Runs the job and returns its exit status. A job whose parts all stop to
// be moved (cluster/Migration.h) starts again from that checkpoint on the
// migration's placement, as a new job of the cluster, with a note (part 0
// on a host that holds it, when the hosts keep their own: see below). A job
// that checkpoints and loses a host (its connection drops, or it cannot be
// reached at the start) restarts from its last checkpoint on the other
// hosts, with a note naming the host and the restart count (stdout cut
// back as for resumeRemoteJob). When the hosts keep their checkpoints in
// directories of their own (synergyd --checkpoint-root), the cluster
// state's record names the hosts that hold the last one
// (cluster/CheckpointHolders.h): part 0 of the restart runs on one of them
// that is live and not draining, with a free slot when one has it, chosen
// when the job is placed (PartZeroPin.h), and the record goes once the job
// has ended with status 0. Without a checkpoint of its own yet (or no such
// holder, which the note says) it starts again from the beginning, stdout
// cut back to where it began. When the other
// hosts lack the slots, it fails as any job does. Problems before the job runs
// (bad token file, Redis or host unreachable, no host large enough, the host
// refusing) are printed as "synergy-run: error: ..." and return 2.
int runRemoteJob(const RemoteJobOptions& options);

// `synergy-run --cluster URL --resume D`: the job checkpointed in D by a
// cluster job (its program, arguments, environment and rank count) placed
// again by the policy, on whatever hosts it picks now, each part restoring
// its ranks from D. When the cluster state records the hosts that hold that
// checkpoint in directories of their own (synergyd --checkpoint-root) and
// one of them can take it, world rank 0 goes on one of them, which sends
// the file to the other parts. `options` brings the state, token, policy and, to go on
// checkpointing, the interval. The checkpoint is checked here first, as a
// local --resume checks it (CheckpointedJob.h), and refused with status 2
// and a message before anything runs or stdout is touched; stdout, when a
// regular file, is then cut back to the checkpoint (OutputJournal.h).
int resumeRemoteJob(RemoteJobOptions options, const std::string& directory);

}  // namespace synergy::scheduler

//===- JobHost.h - Runs jobs that clients place on this host --------------===//
//
// The daemon side of a placed job. A client's RunJob names the module by its
// content hash; the host asks for the bytes (ModuleWanted) only when its
// module store lacks them, takes them in chunks (ModuleAssembly.h), checks
// them against the hash, and stores them under the hash. It then runs the
// job with the single-host MPI runtime, as a `synergy-run -np N` child
// process in its own process group, so that a module that fails validation
// or crashes the runtime takes down only that child. The child's stdout and stderr go back to the client as
// JobOutput frames, each stream in order, then its exit status as JobExit.
// A client that disconnects has its job killed. When a job ends, for any
// reason, onJobFinished frees its slots in the cluster state.
//
// To keep an exec off a job's start, the host keeps one such child started
// ahead, waiting for its command line (JobWorker.h); a job without --dir
// grants runs in it, and the next spare starts when that job ends or has
// had its start to itself.
//
// A RunJob that names a part of a job spread over hosts runs the same way,
// with `synergy-run --cluster-part FILE -np N`, FILE (JobPart.h) written
// next to the module and removed when the job ends.
//
// A job with --dir grants runs only when each lies inside a directory the
// operator allows (JobGrants.h); otherwise the host answers JobRefused,
// naming the path, before it asks for the module or starts anything.
//
// A job that checkpoints (RunJobRequest::checkpointDirectory) names a
// directory its part writes to; the host refuses it like a grant unless it
// lies inside a directory the operator allows, and hands the part its
// canonical path (CheckpointAgreement.h); with a checkpoint root, a
// directory of its own below it (--checkpoint-host-local to the part).
//
// A daemon with a checkpoint root also holds copies of other hosts' jobs'
// checkpoints (CheckpointMirror), and removes its copy of a job's last
// checkpoint when that job's client asks once it has ended with status 0
// (CheckpointForget): only below its root, and only when the cluster state's
// record of the job names this host as a holder (CheckpointHolders.h).
//
// One connection carries at most one job.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/RedisConnection.h"
#include "transport/Transport.h"

namespace synergy::cluster {

struct JobHostConfig {
  // The synergy-run executable that runs each job.
  std::string runProgram;
  // Where modules are stored by content hash; created if missing.
  std::string moduleDirectory;
  transport::TransportLog log;
  // Called on a job's own thread once it has ended.
  std::function<void(uint64_t jobId)> onJobFinished;
  // For jobs spread over several hosts: this host's IP address, on which
  // a job's part takes connections from its other parts, and what the part
  // needs to find them (JobPart.h).
  std::string hostAddress;
  StateUrl state;
  std::string tokenFile;
  // Canonical directories inside which jobs' --dir grants may lie
  // (synergyd --allow-dir); empty: no job may have one.
  std::vector<std::string> allowedDirectories;
  // Canonical; jobs' checkpoint directories are below it, this host's own
  // (synergyd --checkpoint-root, JobGrants.h); empty: they are the
  // client's path, shared by the hosts.
  std::string checkpointRoot;
  // This host's id in the cluster state (known once the daemon listens,
  // before any frame arrives), which a CheckpointForget must find among
  // the holders its job's record names.
  std::function<std::string()> hostId;
};

class JobHost {
 public:
  explicit JobHost(JobHostConfig config);
  // Kills the jobs still running and waits for their threads.
  ~JobHost();
  JobHost(const JobHost&) = delete;
  JobHost& operator=(const JobHost&) = delete;

  // The daemon transport's handlers.
  bool handleFrame(transport::Connection& from, transport::Frame&& frame, std::string& reason);
  void connectionClosed(transport::Connection& connection);

  // Answers every later RunJob with JobRefused.
  void refuseNewJobs();
  // Blocks until no job is running.
  void waitForJobs();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace synergy::cluster

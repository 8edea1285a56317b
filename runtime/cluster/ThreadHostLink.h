//===- ThreadHostLink.h - A thread job's parts linked over the transport ---===//
//
// A job submitted with --threads-per-host K (omp/RemoteThreads.h) is placed
// as one part per host, each of one slot: part 0 runs main(), the others
// are thread hosts. Each part listens on its host's address and publishes
// that endpoint in the cluster state, as MPI parts do (JobPart.h); part 0
// connects to every other part and introduces itself with OmpThreadHello
// (job id, the part it addresses). Then only these frames travel:
//
//   part 0 to a thread host: OmpCopyUpdate, OmpRegionShare, OmpSyncReply,
//                            OmpPthreadStart
//   a thread host to part 0: OmpJoinUpdate, OmpSyncRequest, at a reduction
//                            OmpReductionList
//
// A frame of any other type, on the wrong side, before the hello, or from
// a connection that is not the job's, drops that connection with a logged
// reason. Payloads are queued as they arrive and checked where they are
// used (snapshot/CopyLink.h, omp/RegionShare.h, omp/SyncMessages.h). A
// thread host ends when part 0's connection closes; part 0 ends the job
// with an error when a thread host's connection closes inside a region.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

#include "mpi/MpiJob.h"

namespace synergy::cluster {

// The environment variable that marks a cluster job as a thread job and
// gives K; synergy-run --threads-per-host sets it in the job's environment.
inline constexpr const char* kThreadsPerHostVariable = "SYNERGY_THREADS_PER_HOST";

// The client's side: adds kThreadsPerHostVariable and the OpenMP variables
// of this process's environment (OMP_*, GOMP_*) that `environment` lacks to
// it, and returns the hosts the job needs: ceil(OMP_NUM_THREADS / K), at
// least 1; 0 with `error` when OMP_NUM_THREADS is missing or malformed.
unsigned prepareThreadJob(std::vector<std::string>& environment, unsigned threadsPerHost,
                          std::string& error);
// A part's side: K from the job's environment, 0 when it is no thread job.
unsigned threadsPerHostOf(const std::vector<std::string>& environment);

// Runs one part of a thread job (`synergy-run --cluster-part FILE -np 1`
// with kThreadsPerHostVariable in the job's environment). Returns the
// part's exit status.
int runThreadJobPart(const std::string& partFile, mpi::JobOptions job, unsigned threadsPerHost);

}  // namespace synergy::cluster

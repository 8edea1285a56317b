//===- MpiJob.h - run an MPI program as N granules on this host ------------===//
//
// The launcher behind `synergy-run -np N`: one granule per rank, each on its
// own thread with its own linear memory, all sharing one World. The job's
// exit status follows mpirun: 0 when every rank exits 0; otherwise the
// status of the first rank that trapped (134), called MPI_Abort (its code),
// hit a fatal MPI error (the error class), or exited non-zero. When every
// running rank is blocked forever, the job stops with a report of what each
// rank waits for, instead of hanging.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "granule/Granule.h"

namespace synergy::mpi {

class World;
class BarrierControlPoint;

struct JobOptions {
  std::string program;             // the .wasm file
  granule::GranuleConfig config;   // args, env and preopens, the same for every rank
  int ranks = 1;
  bool tagOutput = false;          // prefix lines with "[1,<rank>]<stdout>:"
  bool showProgress = false;       // AOT compilation progress on stderr
  // Pins each rank's thread to its own CPU, as mpirun's --bind-to core.
  // Unset: bind when there are at least as many usable CPUs as ranks.
  std::optional<bool> bindToCores;
  // A job spread over several hosts: this process runs the world ranks
  // `worldRanks` (`ranks` of them, in increasing order; empty: 0 .. ranks
  // - 1) of worldSize, any set of them (a rank moved live leaves a gap in
  // its old part's), and joinHosts, called
  // once the World exists, on a thread of its own while the module loads,
  // and finished before any rank starts, connects it to the hosts of the
  // others (false with an error: the job does not start).
  std::vector<int> worldRanks;
  int worldSize = 0;  // 0: `ranks`, every rank here
  std::function<bool(World& world, std::string& error)> joinHosts;
  // Called once no rank of this host runs (or just before the process ends
  // those that cannot be stopped), while the World still exists: writes
  // out what is queued for the other hosts and stops taking their messages.
  std::function<void()> leaveHosts;
  // The caller's end-of-job report (statistics on stderr), which it writes
  // after runJob returns; runJob writes it itself when it ends the process
  // instead of returning (below).
  std::function<void()> reportAtEnd;
  // What may happen to the ranks at barriers on MPI_COMM_WORLD (null:
  // nothing); a rank it suspends is rewound into a fresh instance.
  BarrierControlPoint* barrierControlPoint = nullptr;
};

// Exit status for a job that ends because every rank is blocked forever.
inline constexpr int kDeadlockExitCode = 1;
// Exit status for a rank that traps, as for a process killed by SIGABRT.
inline constexpr int kTrapExitCode = 134;

// Runs the job to completion and returns its exit status. Launch problems
// (unloadable module, bad --dir) are reported on stderr with status 2.
// A rank whose main() returns while its detached pthreads still run (or
// may not have left the runtime) ends the process as exit() does: the
// output so far is forwarded, reportAtEnd written, and the process ends
// with the job's status without destroying what those threads use.
int runJob(const JobOptions& options);

}  // namespace synergy::mpi

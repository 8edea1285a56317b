//===- DsmTeam.h - an OpenMP team on copy-on-write replicas (--dsm) --------===//
//
// In --dsm mode the threads of a team do not share the encountering
// thread's memory. Each runs on its own replica of a main copy, exactly as a
// thread on a remote host would, and every OpenMP synchronisation point is
// also a memory synchronisation: releasing pushes the replica's byte-wise
// diff into the main copy, acquiring pulls what other threads pushed
// (keeping the replica's own unpushed bytes).
//
// An outermost team of a process without pthreads owns its main copy: the
// encountering thread's memory. At the end of the region each thread pushes
// once more and the encountering thread goes back to that memory, which
// then holds the merged result.
//
// Every other team shares a main copy that already exists, so that its
// locks, atomics and libc calls (malloc above all) synchronise with every
// other thread: a nested team uses the main copy of the outermost team
// around it, not its encountering thread's replica (two sibling nested teams
// would otherwise each run malloc on their own heap and merge both into
// one); once pthreads exist, every team uses the process's DsmHub. The
// encountering thread then releases into the shared main copy before the
// replicas are made, and acquires from it after the join.
//
// A thread enters the team by moving its granule onto its replica; guest
// frames outside the region (which hoisted the old memory base) only run
// again after it has moved back.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "granule/Granule.h"
#include "omp/DsmHub.h"
#include "omp/ReplicaSync.h"
#include "snapshot/DsmMemory.h"

namespace synergy::omp {

class DsmTeam {
 public:
  // Replicas, one per team thread, of `shared`, or, when that is null, of
  // `encountering`'s current memory. Threads in `remoteThreads` run on other
  // hosts and get none; each of `standIns` more stands in for one such
  // host's threads (omp/RemoteThreads.h).
  DsmTeam(granule::Granule& encountering, int size, MainCopy* shared,
          const std::vector<int>& remoteThreads = {}, int standIns = 0);
  ~DsmTeam();

  void enter(int threadNum, granule::Granule& granule);
  void leave(int threadNum, granule::Granule& granule);
  // After every thread left: the encountering thread sees the team's writes.
  void join(granule::Granule& encountering);
  // The main copy the team's replicas push into; nested teams share it.
  MainCopy& mainCopy() { return *main_; }
  // The replica standing in for thread host `host`'s threads, which only the
  // join writes.
  snapshot::DsmReplica& standIn(int host) { return standIns_.at(size_t(host))->replica(); }

 private:
  struct Member {
    std::unique_ptr<GranuleReplica> replica;
    snapshot::LinearMemory* previousMemory = nullptr;
    granule::MemorySync* previousSync = nullptr;
  };

  granule::Granule& encountering_;
  // Set for an outermost team of a process without pthreads.
  std::unique_ptr<MainCopy> ownMain_;
  MainCopy* main_;
  std::vector<Member> members_;  // by thread number; no replica for remote ones
  std::vector<std::unique_ptr<GranuleReplica>> standIns_;
};

}  // namespace synergy::omp

//===- DsmTeam.h - an OpenMP team on copy-on-write replicas (--dsm) --------===//
//
// In --dsm mode the threads of a team do not share the encountering
// thread's memory. Each runs on its own replica of a main copy, exactly as a
// thread on a remote host would, and every OpenMP synchronisation point is
// also a memory synchronisation: releasing pushes the replica's byte-wise
// diff into the main copy, acquiring pulls what other threads pushed
// (keeping the replica's own unpushed bytes).
//
// The main copy is the encountering thread's current memory (a
// snapshot::DsmMain over it) while the process has no pthreads. At the end
// of the region each thread pushes once more and the encountering thread
// goes back to that memory, which then holds the merged result. Once
// pthreads exist, the process has a DsmHub and the team's replicas are
// replicas of the hub instead, so the team's locks, atomics and libc calls
// synchronise with the pthreads: the encountering thread releases into the
// hub before the replicas are made, and acquires from it after the join.
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
  // Replicas, one per team thread, of `encountering`'s current memory, or
  // of `hub` when the process has one.
  DsmTeam(granule::Granule& encountering, int size, DsmHub* hub);
  ~DsmTeam();

  void enter(int threadNum, granule::Granule& granule);
  void leave(int threadNum, granule::Granule& granule);
  // After every thread left: the encountering thread sees the team's writes.
  void join(granule::Granule& encountering);

 private:
  struct Member {
    std::unique_ptr<GranuleReplica> replica;
    snapshot::LinearMemory* previousMemory = nullptr;
    granule::MemorySync* previousSync = nullptr;
  };

  granule::Granule& encountering_;
  DsmHub* hub_;
  std::recursive_mutex exclusive_;
  // Without a hub: the main copy over the encountering thread's memory.
  std::unique_ptr<snapshot::DsmMain> main_;
  std::vector<Member> members_;
};

}  // namespace synergy::omp

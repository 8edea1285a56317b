//===- DsmTeam.h - an OpenMP team on copy-on-write replicas (--dsm) --------===//
//
// In --dsm mode the threads of a team do not share the encountering
// thread's memory. Each runs on its own replica of it (snapshot::DsmMain),
// exactly as a thread on a remote host would, and every OpenMP
// synchronisation point is also a memory synchronisation: releasing pushes
// the replica's byte-wise diff into the main copy, acquiring pulls what other
// threads pushed (keeping the replica's own unpushed bytes). At the end of the region each thread
// pushes once more and the encountering thread goes back to the main copy,
// which then holds the merged result.
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
#include "omp/ReplicaSync.h"
#include "snapshot/DsmMemory.h"

namespace synergy::omp {

class DsmTeam {
 public:
  // Replicas of `encountering`'s current memory, one per team thread.
  DsmTeam(granule::Granule& encountering, int size);
  ~DsmTeam();

  void enter(int threadNum, granule::Granule& granule);
  void leave(int threadNum, granule::Granule& granule);

 private:
  struct Member {
    std::unique_ptr<snapshot::DsmReplica> replica;
    std::unique_ptr<ReplicaSync> sync;
    snapshot::LinearMemory* previousMemory = nullptr;
    granule::MemorySync* previousSync = nullptr;
  };

  granule::Granule& encountering_;
  snapshot::DsmMain main_;
  std::recursive_mutex exclusive_;
  std::vector<Member> members_;
};

}  // namespace synergy::omp

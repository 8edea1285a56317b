//===- DsmHub.h - the main copy pthreads meet in under --dsm ---------------===//
//
// Under --dsm every pthread runs on its own copy-on-write replica and sees
// other threads' writes only through happens-before edges (create, join,
// mutexes, condition variables, barriers, once, atomics). The replicas need
// a main copy to push their diffs into and pull from, but the main thread
// cannot move onto a replica halfway through main(): its AOT code keeps the
// memory base in locals. So the first pthread_create makes a hub:
//
//  - a main copy H, a copy of the root granule's memory M;
//  - M itself adopted as a replica of H in place (DsmMain::adoptReplica):
//    the root keeps running on M, dirty-tracked against H, and pushes to H
//    at its release points and pulls from it at its acquire points;
//  - every pthread, and every OpenMP team started after that, on a fresh
//    replica of H. A team therefore meets the pthreads in H directly, and
//    its encountering thread, back on its own memory after the join,
//    acquires what the team pushed.
//
// One exclusive lock per hub makes atomics atomic across all participants.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "granule/Granule.h"
#include "omp/ReplicaSync.h"
#include "snapshot/DsmMemory.h"
#include "snapshot/LinearMemory.h"

namespace synergy::omp {

// A replica of a MainCopy (a hub's, or a DsmTeam's) together with the
// MemorySync a granule on it uses. Known to the wasm runtime (so guest code
// can grow it) while it exists.
class GranuleReplica {
 public:
  GranuleReplica(std::unique_ptr<snapshot::DsmReplica> replica, std::recursive_mutex& exclusive);
  ~GranuleReplica();
  GranuleReplica(const GranuleReplica&) = delete;
  GranuleReplica& operator=(const GranuleReplica&) = delete;

  snapshot::DsmReplica& replica() { return *replica_; }
  ReplicaSync& sync() { return sync_; }
  // Moves `granule` (not running guest code) onto this replica.
  void bind(granule::Granule& granule);

 private:
  std::unique_ptr<snapshot::DsmReplica> replica_;
  ReplicaSync sync_;
};

// A main copy that replicas are made of and push into, with the one
// exclusive lock that makes atomics atomic across all of them. Every team
// and pthread that meets in one main copy must take its replicas from here,
// so that their libc calls, locks and atomics synchronise with each other.
class MainCopy {
 public:
  // `memory` must outlive this object and, while replicas exist, be written
  // only through their pushes.
  explicit MainCopy(snapshot::LinearMemory& memory) : main_(memory) {}

  // `count` new replicas of the main copy as it is now. Traps `requester`
  // on failure.
  std::vector<std::unique_ptr<GranuleReplica>> createReplicas(granule::Granule& requester,
                                                              size_t count);
  // `memory` itself made a replica in place (DsmMain::adoptReplica).
  std::unique_ptr<snapshot::DsmReplica> adoptReplica(snapshot::LinearMemory& memory,
                                                     std::string& error);
  snapshot::LinearMemory& memory() { return main_.memory(); }
  snapshot::DsmMain& dsm() { return main_; }
  std::recursive_mutex& exclusive() { return exclusive_; }

 private:
  snapshot::DsmMain main_;
  std::recursive_mutex exclusive_;
};

class DsmHub {
 public:
  // Makes H from `root`'s memory and adopts that memory as a replica; the
  // root gets its MemorySync. Traps the root on failure.
  explicit DsmHub(granule::Granule& root);
  ~DsmHub();

  MainCopy& mainCopy() { return *main_; }

 private:
  snapshot::LinearMemory memory_;
  std::unique_ptr<MainCopy> main_;
  std::unique_ptr<snapshot::DsmReplica> rootReplica_;
  std::unique_ptr<ReplicaSync> rootSync_;
};

}  // namespace synergy::omp

//===- ReplicaSync.h - memory synchronisation of a --dsm replica ------------===//
//
// The MemorySync of a granule that runs on a snapshot::DsmReplica: releasing
// pushes the replica's byte-wise diff into the main copy, acquiring pulls
// what others pushed (keeping the replica's own unpushed bytes), and atomics
// run under one lock per main copy.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <mutex>

#include "granule/Granule.h"
#include "snapshot/DsmMemory.h"

namespace synergy::omp {

class ReplicaSync : public granule::MemorySync {
 public:
  ReplicaSync(snapshot::DsmReplica& replica, std::recursive_mutex& exclusive)
      : replica_(replica), exclusive_(exclusive) {}
  void acquire() override;
  void release() override;
  // Under the main copy's lock, between an acquire and a release.
  uint64_t performAtomic(const granule::AtomicAccess& access, uint8_t* cell) override;
  // Every replica of one main copy shares its exclusive lock.
  const void* domain() const override { return &exclusive_; }

 private:
  snapshot::DsmReplica& replica_;
  std::recursive_mutex& exclusive_;
};

}  // namespace synergy::omp

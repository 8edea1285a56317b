//===- ReplicaSync.cpp - memory synchronisation of a --dsm replica ----------===//
#include "omp/ReplicaSync.h"

#include <mutex>

#include "granule/GuestExecution.h"
#include "granule/WasmRuntime.h"

namespace synergy::omp {

void ReplicaSync::acquire() {
  if (!replica_.pull()) granule::unwindGuestTrap("--dsm: cannot grow memory", 0);
  // A pull grows the replica when another thread grew the main copy.
  granule::refreshMemoryViews(replica_.memory());
}

void ReplicaSync::release() {
  if (!replica_.push()) granule::unwindGuestTrap("--dsm: cannot grow the main copy", 0);
}

uint64_t ReplicaSync::performAtomic(const granule::AtomicAccess& access, uint8_t* cell) {
  std::lock_guard<std::recursive_mutex> exclusive(exclusive_);
  acquire();
  uint64_t old = granule::applyAtomicAccess(cell, access);
  release();
  return old;
}

}  // namespace synergy::omp

//===- ReplicaSync.cpp - memory synchronisation of a --dsm replica ----------===//
#include "omp/ReplicaSync.h"

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

}  // namespace synergy::omp

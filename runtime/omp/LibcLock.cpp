//===- LibcLock.cpp - the lock SerializeLibc puts around libc --------------===//
//
// passes/SerializeLibc.cpp wraps malloc, free and stdio in calls to these two
// imports of module "synergy". One recursive lock per process; in --dsm mode
// taking it also brings the caller's replica up to date, and releasing it
// publishes the replica's changes, so the heap stays coherent.
//
//===----------------------------------------------------------------------===//
#include "granule/Granule.h"
#include "omp/ThreadGroup.h"

using synergy::granule::Granule;
using synergy::omp::ThreadMember;

extern "C" {

void Z_synergyZ_libc_lock_acquire(void* host) {
  Granule& granule = Granule::fromHost(host);
  granule.extension<ThreadMember>().group().lockLibc(granule);
}

void Z_synergyZ_libc_lock_release(void* host) {
  Granule& granule = Granule::fromHost(host);
  granule.extension<ThreadMember>().group().unlockLibc(granule);
}

}  // extern "C"

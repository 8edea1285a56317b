//===- ProcessFunctions.cpp - args, environ, exit, yield, random -----------===//
//
// The process-level part of WASI preview1. Arguments and environment come from
// the granule's configuration (synergy-run's command line and --env), never
// from the host process, so a guest sees exactly what it was given.
//
//===----------------------------------------------------------------------===//
#include <sched.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "granule/Granule.h"
#include "snapshot/DirtyTracker.h"
#include "wasi/WasiAbi.h"
#include "wasi/WasiErrno.h"
#include "wasi/WasiImports.h"
#include "wasi/WasiState.h"

using synergy::granule::Granule;
using namespace synergy::wasi;

// Total bytes of the strings with their NUL terminators.
static uint64_t packedSize(const std::vector<std::string>& strings) {
  uint64_t bytes = 0;
  for (const std::string& s : strings) bytes += s.size() + 1;
  return bytes;
}

static uint32_t writeSizes(Granule& granule, const std::vector<std::string>& strings,
                           uint32_t countOut, uint32_t bufSizeOut) {
  uint8_t* count = granule.guestBytes(countOut, 4);
  uint8_t* bufSize = granule.guestBytes(bufSizeOut, 4);
  storeGuest<uint32_t>(count, static_cast<uint32_t>(strings.size()));
  storeGuest<uint32_t>(bufSize, static_cast<uint32_t>(packedSize(strings)));
  return toGuest(Errno::Success);
}

// Writes the pointer array at `pointers` and the NUL-terminated strings at
// `buffer`, the layout argv and environ share.
static uint32_t writeStrings(Granule& granule, const std::vector<std::string>& strings,
                             uint32_t pointers, uint32_t buffer) {
  uint8_t* pointerArray = granule.guestBytes(pointers, uint64_t(strings.size()) * 4);
  uint8_t* bytes = granule.guestBytes(buffer, packedSize(strings));
  uint32_t offset = 0;
  for (size_t i = 0; i < strings.size(); ++i) {
    storeGuest<uint32_t>(pointerArray + i * 4, buffer + offset);
    const std::string& s = strings[i];
    std::copy(s.begin(), s.end(), bytes + offset);
    bytes[offset + s.size()] = 0;
    offset += static_cast<uint32_t>(s.size() + 1);
  }
  return toGuest(Errno::Success);
}

extern "C" {

uint32_t Z_wasi_snapshot_preview1Z_args_sizes_get(WasiInstance* instance, uint32_t argcOut,
                                                  uint32_t argvBufSizeOut) {
  Granule& granule = Granule::fromHost(instance);
  return writeSizes(granule, granule.config().args, argcOut, argvBufSizeOut);
}

uint32_t Z_wasi_snapshot_preview1Z_args_get(WasiInstance* instance, uint32_t argv,
                                            uint32_t argvBuf) {
  Granule& granule = Granule::fromHost(instance);
  return writeStrings(granule, granule.config().args, argv, argvBuf);
}

uint32_t Z_wasi_snapshot_preview1Z_environ_sizes_get(WasiInstance* instance, uint32_t countOut,
                                                     uint32_t bufSizeOut) {
  Granule& granule = Granule::fromHost(instance);
  return writeSizes(granule, granule.config().env, countOut, bufSizeOut);
}

uint32_t Z_wasi_snapshot_preview1Z_environ_get(WasiInstance* instance, uint32_t environPointers,
                                               uint32_t environBuf) {
  Granule& granule = Granule::fromHost(instance);
  return writeStrings(granule, granule.config().env, environPointers, environBuf);
}

void Z_wasi_snapshot_preview1Z_proc_exit(WasiInstance* instance, uint32_t code) {
  Granule::fromHost(instance).exit(static_cast<int>(code));
}

// wasi-libc has no signal handlers to run, so a raised signal ends the guest
// the way an uncaught one would.
uint32_t Z_wasi_snapshot_preview1Z_proc_raise(WasiInstance* instance, uint32_t signal) {
  Granule::fromHost(instance).trap("proc_raise(" + std::to_string(signal) + ")");
}

uint32_t Z_wasi_snapshot_preview1Z_sched_yield(WasiInstance*) {
  ::sched_yield();
  return toGuest(Errno::Success);
}

uint32_t Z_wasi_snapshot_preview1Z_random_get(WasiInstance* instance, uint32_t buf,
                                              uint32_t length) {
  uint8_t* bytes = Granule::fromHost(instance).guestBytes(buf, length);
  synergy::snapshot::prepareHostWrite(bytes, length);  // see transferIovecs in FdFunctions.cpp
  uint32_t filled = 0;
  while (filled < length) {
    ssize_t got = ::getrandom(bytes + filled, length - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return toGuest(errnoFromHost(errno));
    }
    filled += static_cast<uint32_t>(got);
  }
  return toGuest(Errno::Success);
}

}  // extern "C"

// env.synergy_processor_count, for sysconf(_SC_NPROCESSORS_ONLN) and _CONF
// (guestlib/ProcessorCount.c; wasi-libc answers 1): the host's online
// processors, counted as the OpenMP runtime counts them for
// omp_get_num_procs, so the two agree.
extern "C" uint32_t Z_envZ_synergy_processor_count(void*) {
  long processors = ::sysconf(_SC_NPROCESSORS_ONLN);
  return processors > 0 ? uint32_t(processors) : 1;
}

// env.synergy_working_directory, for guestlib/WorkingDirectory.c: copies
// the guest's name for the host's current directory (WasiState), with its
// terminating NUL, into [buffer, buffer + size) when it fits, and returns
// its size with the NUL; 0 when no grant holds that directory.
extern "C" uint32_t Z_envZ_synergy_working_directory(void* instance, uint32_t buffer,
                                                     uint32_t size) {
  Granule& granule = Granule::fromHost(instance);
  const std::string& directory = wasiState(granule).guestWorkingDirectory();
  if (directory.empty()) return 0;
  uint64_t needed = uint64_t(directory.size()) + 1;
  if (needed > UINT32_MAX) return 0;
  if (needed <= size) {
    uint8_t* bytes = granule.guestBytes(buffer, uint32_t(needed));
    synergy::snapshot::prepareHostWrite(bytes, needed);
    std::memcpy(bytes, directory.c_str(), needed);
  }
  return uint32_t(needed);
}

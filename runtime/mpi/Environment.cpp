//===- Environment.cpp - MPI start-up, shutdown, clocks, errors -----------===//
//
// Host functions for the environment part of MPI: initialisation and
// finalisation, MPI_Abort, timers, processor name and versions, error
// handlers and error strings. (Attributes: CommunicatorAttributes.cpp;
// info objects: InfoObjects.cpp.)
//
//===----------------------------------------------------------------------===//
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "mpi/CollectiveEngine.h"
#include "mpi/CommunicatorAttributes.h"
#include "mpi/HostCollectives.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

bool storeString(HostCall& call, u32 addr, u32 lengthOut, const std::string& text, size_t max) {
  std::string clipped = text.substr(0, max - 1);
  uint8_t* out = call.bytes(addr, clipped.size() + 1);
  if (!out) return false;
  std::memcpy(out, clipped.c_str(), clipped.size() + 1);
  return lengthOut == 0 || call.store<int32_t>(lengthOut, int32_t(clipped.size()));
}

int initialize(HostCall& call) {
  if (call.rank.initialized)
    return call.fail(abi::kCommWorld, abi::kErrOther, "MPI is already initialised");
  call.rank.initialized = true;
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Init(void* instance, u32 argc, u32 argv) {
  HostCall call(instance, "MPI_Init");
  (void)argc;
  (void)argv;
  return initialize(call);
}

u32 Z_envZ_MPI_Init_thread(void* instance, u32 argc, u32 argv, u32 required, u32 provided) {
  HostCall call(instance, "MPI_Init_thread");
  (void)argc;
  (void)argv;
  // Every level is served: a thread granule's calls act as its rank, and
  // under MPI_THREAD_MULTIPLE they are serialised by the rank's call lock,
  // which lower levels do without (the program serialises them itself).
  int level = std::clamp<int>(int32_t(required), abi::kThreadSingle, abi::kThreadMultiple);
  if (!call.store<int32_t>(provided, level))
    return call.fail(abi::kCommWorld, abi::kErrArg, "provided pointer outside linear memory");
  int result = initialize(call);
  if (result != abi::kSuccess) return result;
  call.rank.threadLevel = level;
  if (level == abi::kThreadMultiple) call.world().callLock(call.rank.worldRank).enable();
  return result;
}

u32 Z_envZ_MPI_Initialized(void* instance, u32 flag) {
  HostCall call(instance, "MPI_Initialized");
  call.store<int32_t>(flag, call.rank.initialized ? 1 : 0);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Finalize(void* instance) {
  HostCall call(instance, "MPI_Finalize");
  // MPI_COMM_SELF's attributes go first, before anything else of MPI is
  // affected (MPI-4.0 section 11.2.4: its delete callbacks are the
  // program's at-exit hooks, and MPI_Finalized still says false in them).
  if (int error = deleteCommAttributes(call, abi::kCommSelf)) return error;
  // Finalize synchronises like OpenMPI's does, so a rank never leaves while
  // others may still be reading its memory.
  int result = usesHostCollectives(call, abi::kCommWorld)
                   ? barrierAcrossHosts(call, abi::kCommWorld)
                   : runCollective(
                         call, abi::kCommWorld, CollectiveKind::Barrier, [](Contribution&) {},
                         [](std::vector<Contribution>&, int) { return abi::kSuccess; });
  call.rank.finalized = true;
  // MPI_COMM_WORLD's attributes go with it, as OpenMPI deletes them: after
  // the barrier, once MPI_Finalized says true.
  if (int error = deleteCommAttributes(call, abi::kCommWorld)) return error;
  return result;
}

u32 Z_envZ_MPI_Finalized(void* instance, u32 flag) {
  HostCall call(instance, "MPI_Finalized");
  call.store<int32_t>(flag, call.rank.finalized ? 1 : 0);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Abort(void* instance, u32 comm, u32 errorcode) {
  HostCall call(instance, "MPI_Abort");
  (void)comm;
  int code = int(errorcode);
  call.world().abort(code,
                     "rank " + std::to_string(call.rank.worldRank) +
                         " called MPI_Abort with error code " + std::to_string(code));
  call.exitGranule(code);
}

u32 Z_envZ_MPI_Query_thread(void* instance, u32 provided) {
  HostCall call(instance, "MPI_Query_thread");
  if (!call.store<int32_t>(provided, call.rank.threadLevel))
    return call.fail(abi::kCommWorld, abi::kErrArg, "provided pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Is_thread_main(void* instance, u32 flag) {
  HostCall call(instance, "MPI_Is_thread_main");
  if (!call.store<int32_t>(flag, call.granule.parent() ? 0 : 1))
    return call.fail(abi::kCommWorld, abi::kErrArg, "flag pointer outside linear memory");
  return abi::kSuccess;
}

double Z_envZ_MPI_Wtime(void* instance) {
  (void)instance;
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

double Z_envZ_MPI_Wtick(void* instance) {
  (void)instance;
  timespec resolution;
  clock_getres(CLOCK_MONOTONIC, &resolution);
  return double(resolution.tv_sec) + double(resolution.tv_nsec) * 1e-9;
}

u32 Z_envZ_MPI_Get_processor_name(void* instance, u32 name, u32 lengthOut) {
  HostCall call(instance, "MPI_Get_processor_name");
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  if (!storeString(call, name, lengthOut, host, abi::kMaxProcessorName))
    return call.fail(abi::kCommWorld, abi::kErrArg, "name buffer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Get_version(void* instance, u32 version, u32 subversion) {
  HostCall call(instance, "MPI_Get_version");
  if (!call.store<int32_t>(version, 3) || !call.store<int32_t>(subversion, 1))
    return call.fail(abi::kCommWorld, abi::kErrArg, "output outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Get_library_version(void* instance, u32 version, u32 lengthOut) {
  HostCall call(instance, "MPI_Get_library_version");
  if (!storeString(call, version, lengthOut, "Synergy MPI (granules on one host), MPI 3.1",
                   abi::kMaxLibraryVersionString))
    return call.fail(abi::kCommWorld, abi::kErrArg, "output outside linear memory");
  return abi::kSuccess;
}

// Profiling control: there is no profiler to steer, so every level is fine.
// The variadic arguments arrive as one pointer, as clang passes them on wasm32.
u32 Z_envZ_MPI_Pcontrol(void* instance, u32 level, u32 varargs) {
  (void)instance;
  (void)level;
  (void)varargs;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Errhandler_free(void* instance, u32 errhandlerAddr) {
  HostCall call(instance, "MPI_Errhandler_free");
  call.store<int32_t>(errhandlerAddr, abi::kErrhandlerNull);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Error_string(void* instance, u32 errorcode, u32 text, u32 lengthOut) {
  HostCall call(instance, "MPI_Error_string");
  auto added = call.rank.userErrorCodes.find(int(errorcode));
  std::string message = added != call.rank.userErrorCodes.end()
                            ? added->second.text
                            : std::string(errorClassName(int(errorcode))) + ": " +
                                  errorClassText(int(errorcode));
  if (!storeString(call, text, lengthOut, message, abi::kMaxErrorString))
    return call.fail(abi::kCommWorld, abi::kErrArg, "string buffer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Error_class(void* instance, u32 errorcode, u32 classOut) {
  HostCall call(instance, "MPI_Error_class");
  int code = int(errorcode);
  auto added = call.rank.userErrorCodes.find(code);
  if (added != call.rank.userErrorCodes.end()) {
    call.store<int32_t>(classOut, added->second.errorClass);
    return abi::kSuccess;
  }
  if (code < 0 || code > abi::kErrLastCode)
    return call.fail(abi::kCommWorld, abi::kErrArg, "invalid error code " + std::to_string(code));
  call.store<int32_t>(classOut, code);
  return abi::kSuccess;
}

}  // extern "C"

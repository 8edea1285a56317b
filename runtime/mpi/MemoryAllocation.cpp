//===- MemoryAllocation.cpp - MPI_Alloc_mem and MPI_Free_mem --------------===//
//
// Memory for messages and windows comes from the program's own allocator,
// through the synergy_mpi_alloc/free exports that mpi.h gives every
// granule: the runtime has no heap of its own in linear memory. Each rank
// remembers the blocks it handed out, so MPI_Free_mem of anything else is
// MPI_ERR_BASE and frees nothing, instead of corrupting the guest's heap.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

extern "C" {

u32 Z_envZ_MPI_Alloc_mem(void* instance, u32 size, u32 info, u32 baseptrOut) {
  HostCall call(instance, "MPI_Alloc_mem");
  (void)info;
  int32_t bytes = int32_t(size);
  if (bytes < 0)
    return call.fail(abi::kCommWorld, abi::kErrArg, "negative size " + std::to_string(bytes));
  if (!call.bytes(baseptrOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "baseptr outside linear memory");
  using AllocFn = uint32_t (*)(void*, uint32_t);
  auto alloc =
      reinterpret_cast<AllocFn>(call.granule.module().exportedFunction("synergy_mpi_alloc"));
  // A zero-byte request still gets a block of its own, which MPI_Free_mem
  // then accepts.
  uint32_t block = alloc ? alloc(call.granule.instance(), uint32_t(std::max(bytes, 1))) : 0;
  if (!block)
    return call.fail(abi::kCommWorld, abi::kErrNoMem,
                     "cannot allocate " + std::to_string(bytes) + " bytes");
  call.rank.allocatedMemory.insert(block);
  call.store<uint32_t>(baseptrOut, block);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Free_mem(void* instance, u32 base) {
  HostCall call(instance, "MPI_Free_mem");
  if (!call.rank.allocatedMemory.erase(base))
    return call.fail(abi::kCommWorld, abi::kErrBase,
                     "address " + std::to_string(base) + " was not allocated by MPI_Alloc_mem");
  using FreeFn = void (*)(void*, uint32_t);
  auto release =
      reinterpret_cast<FreeFn>(call.granule.module().exportedFunction("synergy_mpi_free"));
  if (release) release(call.granule.instance(), base);
  return abi::kSuccess;
}

}  // extern "C"

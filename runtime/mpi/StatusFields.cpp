//===- StatusFields.cpp - reading and setting a status's fields ------------===//
//
// MPI_Test_cancelled reads a status's cancelled flag; MPI_Status_set_elements
// (_x) and MPI_Status_set_cancelled set a status, as a generalized
// request's query function does, so that MPI_Get_count, MPI_Get_elements and
// MPI_Test_cancelled then report what the program set.
//
// A status holds what was received as a byte count (include/mpi.h), so
// setting N elements of a datatype stores the bytes N of its basic elements
// occupy: MPI_Get_elements with that datatype gives N back, and
// MPI_Get_count gives N divided by the elements one instance holds when
// that is whole. A datatype of mixed basic elements has no such byte count;
// it is refused with MPI_ERR_TYPE.
//
//===----------------------------------------------------------------------===//
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

int setElements(HostCall& call, u32 status, u32 type, int64_t count) {
  if (!call.bytes(status, abi::kStatusSize))
    return call.fail(abi::kCommWorld, abi::kErrArg, "status outside linear memory");
  const Layout& layout = call.rank.type(int(type));
  if (!layout)
    return call.fail(abi::kCommWorld, abi::kErrType,
                     "invalid datatype " + std::to_string(int(type)));
  if (count < 0)
    return call.fail(abi::kCommWorld, abi::kErrCount, "negative count " + std::to_string(count));
  int64_t bytes = 0;
  if (layout->element == ElementKind::Mixed)
    return call.fail(abi::kCommWorld, abi::kErrType,
                     "a datatype of mixed basic elements has no element count to set");
  if (layout->element != ElementKind::None &&
      __builtin_mul_overflow(count, packedElementSize(layout->element), &bytes))
    return call.fail(abi::kCommWorld, abi::kErrCount,
                     "count " + std::to_string(count) + " is too large");
  call.store<int64_t>(status + abi::kStatusCountOffset, bytes);
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Test_cancelled(void* instance, u32 status, u32 flag) {
  HostCall call(instance, "MPI_Test_cancelled");
  int32_t cancelled;
  if (!call.bytes(status, abi::kStatusSize) ||
      !call.load(status + abi::kStatusCancelledOffset, cancelled))
    return call.fail(abi::kCommWorld, abi::kErrArg, "status outside linear memory");
  if (!call.store<int32_t>(flag, cancelled ? 1 : 0))
    return call.fail(abi::kCommWorld, abi::kErrArg, "flag pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Status_set_cancelled(void* instance, u32 status, u32 flag) {
  HostCall call(instance, "MPI_Status_set_cancelled");
  if (!call.bytes(status, abi::kStatusSize) ||
      !call.store<int32_t>(status + abi::kStatusCancelledOffset, flag ? 1 : 0))
    return call.fail(abi::kCommWorld, abi::kErrArg, "status outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Status_set_elements(void* instance, u32 status, u32 type, u32 count) {
  HostCall call(instance, "MPI_Status_set_elements");
  return setElements(call, status, type, int32_t(count));
}

u32 Z_envZ_MPI_Status_set_elements_x(void* instance, u32 status, u32 type, uint64_t count) {
  HostCall call(instance, "MPI_Status_set_elements_x");
  return setElements(call, status, type, int64_t(count));
}

}  // extern "C"

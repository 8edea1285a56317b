//===- Packing.cpp - MPI_Pack, MPI_Unpack and MPI_Pack_size ----------------===//
//
// Host functions that move typed data into and out of a byte buffer the
// program sends as MPI_PACKED. The packed form is a datatype's data bytes
// in type-map order, without gaps, in this host's byte order: the form a
// message of the same datatype carries (Datatype.h), so a packed buffer
// and the typed data it came from match each other's receives.
//
// The position, the buffer size and the data all come from the guest, so
// every range is checked before a byte moves: a pack or unpack that would
// run past the buffer the program named is MPI_ERR_TRUNCATE and moves
// nothing.
//
//===----------------------------------------------------------------------===//
#include "mpi/Datatype.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

enum class Use { MovesData, SizeOnly };

// Checks a call's communicator, count and datatype (committed, when the
// call moves data); returns 0 or the raised error.
int checkArguments(HostCall& call, int comm, int count, int typeHandle, Use use, Layout& type) {
  if (!call.rank.comm(comm)) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (count < 0) return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(count));
  type = call.rank.type(typeHandle);
  if (!type) return call.fail(comm, abi::kErrType, "invalid datatype " + std::to_string(typeHandle));
  if (use == Use::MovesData && !type->committed) return call.fail(comm, abi::kErrType, "datatype is not committed");
  return abi::kSuccess;
}

// Reads the position at `positionAddr` and checks that `bytes` more fit in
// a packed buffer of `bufferSize` bytes at guest `buffer`; sets `packed` to
// the host address of the range. Returns 0 or the raised error.
int packedRange(HostCall& call, int comm, u32 buffer, int bufferSize, u32 positionAddr,
                int64_t bytes, int32_t& position, uint8_t*& packed) {
  if (bufferSize < 0)
    return call.fail(comm, abi::kErrArg, "negative buffer size " + std::to_string(bufferSize));
  if (!call.load(positionAddr, position))
    return call.fail(comm, abi::kErrArg, "position pointer outside linear memory");
  if (position < 0 || position > bufferSize)
    return call.fail(comm, abi::kErrArg,
                     "position " + std::to_string(position) + " outside the buffer of " +
                         std::to_string(bufferSize) + " bytes");
  if (bytes > int64_t(bufferSize) - position)
    return call.fail(comm, abi::kErrTruncate,
                     std::to_string(bytes) + " bytes at position " + std::to_string(position) +
                         " run past the buffer of " + std::to_string(bufferSize) + " bytes");
  packed = call.bytes(uint64_t(buffer) + uint64_t(position), uint64_t(bytes));
  if (!packed) return call.fail(comm, abi::kErrBuffer, "packed buffer outside linear memory");
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Pack(void* instance, u32 inbuf, u32 incount, u32 type, u32 outbuf, u32 outsize,
                    u32 positionAddr, u32 comm) {
  HostCall call(instance, "MPI_Pack");
  int c = int(comm);
  Layout layout;
  if (int error = checkArguments(call, c, int(incount), int(type), Use::MovesData, layout))
    return error;
  int64_t bytes = layout->size * int(incount);
  int32_t position;
  uint8_t* packed;
  if (int error = packedRange(call, c, outbuf, int(outsize), positionAddr, bytes, position, packed))
    return error;
  bool ok;
  const uint8_t* data = call.typedBuffer(inbuf, *layout, int(incount), ok);
  if (!ok) return call.fail(c, abi::kErrBuffer, "input buffer outside linear memory");
  packTyped(data, *layout, int(incount), packed);
  call.store<int32_t>(positionAddr, int32_t(position + bytes));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Unpack(void* instance, u32 inbuf, u32 insize, u32 positionAddr, u32 outbuf,
                      u32 outcount, u32 type, u32 comm) {
  HostCall call(instance, "MPI_Unpack");
  int c = int(comm);
  Layout layout;
  if (int error = checkArguments(call, c, int(outcount), int(type), Use::MovesData, layout))
    return error;
  int64_t bytes = layout->size * int(outcount);
  int32_t position;
  uint8_t* packed;
  if (int error = packedRange(call, c, inbuf, int(insize), positionAddr, bytes, position, packed))
    return error;
  bool ok;
  uint8_t* data = call.typedBuffer(outbuf, *layout, int(outcount), ok);
  if (!ok) return call.fail(c, abi::kErrBuffer, "output buffer outside linear memory");
  unpackTyped(packed, data, *layout, int(outcount));
  call.store<int32_t>(positionAddr, int32_t(position + bytes));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Pack_size(void* instance, u32 incount, u32 type, u32 comm, u32 sizeOut) {
  HostCall call(instance, "MPI_Pack_size");
  int c = int(comm);
  Layout layout;
  if (int error = checkArguments(call, c, int(incount), int(type), Use::SizeOnly, layout))
    return error;
  int64_t bytes = layout->size * int(incount);
  if (bytes > INT32_MAX)
    return call.fail(c, abi::kErrCount, "packed size " + std::to_string(bytes) + " exceeds an int");
  if (!call.store<int32_t>(sizeOut, int32_t(bytes)))
    return call.fail(c, abi::kErrArg, "size pointer outside linear memory");
  return abi::kSuccess;
}

}  // extern "C"

//===- DatatypeAttributes.cpp - MPI keyvals and attributes on datatypes ---===//
//
// Host functions for attribute caching on datatypes (MPI_Type_create_keyval,
// MPI_Type_set_attr, ...), and the steps MPI_Type_dup and MPI_Type_free
// (DatatypeFunctions.cpp) take for them: a duplicate gets what its keyvals'
// copy callbacks hand back, and freeing a datatype runs their delete
// callbacks. The keyvals live in the rank's one table and the callbacks run
// through the checked steps of CommunicatorAttributes.cpp; only where the
// values hang differs: RankState::typeAttributes, by datatype handle.
// Errors on a datatype are raised on MPI_COMM_WORLD, as MPI specifies for
// objects without an error handler of their own.
//
//===----------------------------------------------------------------------===//
#include "mpi/DatatypeAttributes.h"

#include "mpi/CommunicatorAttributes.h"
#include "mpi/MpiAbi.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// Whether `type` names a live datatype; raises MPI_ERR_TYPE otherwise.
int checkType(HostCall& call, int type) {
  if (!call.rank.type(type))
    return call.fail(abi::kCommWorld, abi::kErrType, "invalid datatype " + std::to_string(type));
  return abi::kSuccess;
}

}  // namespace

namespace synergy::mpi {

int copyTypeAttributes(HostCall& call, int from, int to) {
  auto found = call.rank.typeAttributes.find(from);
  if (found == call.rank.typeAttributes.end()) return abi::kSuccess;
  AttributeMap copies;
  if (int error = copyAttributes(call, abi::kCommWorld, from, AttributeMap(found->second), copies))
    return error;
  if (!copies.empty()) call.rank.typeAttributes[to] = std::move(copies);
  return abi::kSuccess;
}

int deleteTypeAttributes(HostCall& call, int type) {
  auto found = call.rank.typeAttributes.find(type);
  if (found == call.rank.typeAttributes.end()) return abi::kSuccess;
  AttributeMap attributes = std::move(found->second);
  call.rank.typeAttributes.erase(found);
  return deleteAttributes(call, abi::kCommWorld, type, attributes);
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Type_create_keyval(void* instance, u32 copyFunction, u32 deleteFunction,
                                  u32 keyvalOut, u32 extraState) {
  HostCall call(instance, "MPI_Type_create_keyval");
  return createKeyval(call, copyFunction, deleteFunction, keyvalOut, extraState);
}

u32 Z_envZ_MPI_Type_free_keyval(void* instance, u32 keyvalAddr) {
  HostCall call(instance, "MPI_Type_free_keyval");
  return freeKeyval(call, keyvalAddr);
}

u32 Z_envZ_MPI_Type_set_attr(void* instance, u32 type, u32 keyval, u32 value) {
  HostCall call(instance, "MPI_Type_set_attr");
  if (int error = checkType(call, int(type))) return error;
  return setAttribute(
      call, abi::kCommWorld, int(type),
      [&]() -> AttributeMap* {
        if (!call.rank.type(int(type))) return nullptr;
        return &call.rank.typeAttributes[int(type)];
      },
      int(keyval), value);
}

u32 Z_envZ_MPI_Type_get_attr(void* instance, u32 type, u32 keyval, u32 valueOut, u32 flagOut) {
  HostCall call(instance, "MPI_Type_get_attr");
  if (int error = checkType(call, int(type))) return error;
  static const AttributeMap kNone;
  auto found = call.rank.typeAttributes.find(int(type));
  return getAttribute(call, abi::kCommWorld,
                      found == call.rank.typeAttributes.end() ? kNone : found->second,
                      int(keyval), valueOut, flagOut);
}

u32 Z_envZ_MPI_Type_delete_attr(void* instance, u32 type, u32 keyval) {
  HostCall call(instance, "MPI_Type_delete_attr");
  if (int error = checkType(call, int(type))) return error;
  return deleteAttribute(
      call, abi::kCommWorld, int(type),
      [&]() -> AttributeMap* {
        if (!call.rank.type(int(type))) return nullptr;
        return &call.rank.typeAttributes[int(type)];
      },
      int(keyval));
}

}  // extern "C"

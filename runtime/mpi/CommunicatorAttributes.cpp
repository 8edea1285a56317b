//===- CommunicatorAttributes.cpp - MPI keyvals and communicator attributes ===//
//
// Host functions for attribute caching on communicators: the predefined
// keys of MPI_COMM_WORLD (MPI_TAG_UB, ...), and keyvals the program makes
// with MPI_Comm_create_keyval (or MPI-1's MPI_Keyval_create), whose values
// it sets, reads and deletes, and whose copy and delete callbacks run when
// a communicator is duplicated or freed or an attribute is replaced or
// deleted. The keyval table and the steps that run the callbacks serve the
// attributes of datatypes too (DatatypeAttributes.cpp): one table of
// keyvals per rank, whichever kind of object their attributes hang on.
//
// The callbacks are guest functions, called through the module's function
// table after the entry's wasm type has been checked against the one MPI's
// C prototype compiles to, so a keyval made from a wrong pointer traps as
// a bad indirect call would instead of calling through a mismatched type.
// MPI_COMM_NULL_COPY_FN and MPI_COMM_NULL_DELETE_FN are the null pointer,
// which the runtime treats as "do not copy" and "nothing to do";
// MPI_COMM_DUP_FN is a guest function from mpi.h.
//
// An attribute value is a pointer-sized word, which MPI hands out by
// address (MPI_Comm_get_attr, a callback's attribute_val_out), so the
// runtime keeps a few guest cells per rank for the duration of the run,
// allocated from the guest heap at the first call that needs them.
//
//===----------------------------------------------------------------------===//
#include "mpi/CommunicatorAttributes.h"

#include <wasm-rt.h>

#include <algorithm>
#include <vector>

#include "mpi/MpiAbi.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// The guest cells: one per predefined key (indexed by the key), then the
// copy callback's attribute_val_out and flag.
constexpr u32 kPredefinedCells = abi::kAttrLastUsedCode + 1;
constexpr u32 kCopyValueCell = kPredefinedCells;
constexpr u32 kCopyFlagCell = kPredefinedCells + 1;
constexpr u32 kCells = kPredefinedCells + 2;

// The base of the rank's guest cells, allocated on first use; 0 when the
// guest heap has no room (after raising on `comm`).
u32 attributeCells(HostCall& call, int comm) {
  if (!call.rank.attributeCellsGuest) {
    using AllocFn = uint32_t (*)(void*, uint32_t);
    auto alloc =
        reinterpret_cast<AllocFn>(call.granule.module().exportedFunction("synergy_mpi_alloc"));
    call.rank.attributeCellsGuest = alloc ? alloc(call.granule.instance(), 4 * kCells) : 0;
    if (!call.rank.attributeCellsGuest || !call.bytes(call.rank.attributeCellsGuest, 4 * kCells)) {
      call.rank.attributeCellsGuest = 0;
      call.fail(comm, abi::kErrNoMem, "no guest memory for attribute values");
    }
  }
  return call.rank.attributeCellsGuest;
}

// The guest function at table index `function` when its wasm type is
// (i32 x params) -> i32; traps otherwise, like a bad call_indirect.
void* guestCallback(HostCall& call, u32 function, uint32_t params) {
  static const uint32_t copyType = wasm_rt_register_func_type(
      6, 1, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32,
      WASM_RT_I32);
  static const uint32_t deleteType = wasm_rt_register_func_type(
      4, 1, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32);
  uint32_t type = params == 6 ? copyType : deleteType;
  wasm_rt_funcref_table_t* table = call.granule.module().table(call.granule.instance());
  if (!table || function >= table->size || !table->data[function].func ||
      table->data[function].func_type != type)
    wasm_rt_trap(WASM_RT_TRAP_CALL_INDIRECT);
  return reinterpret_cast<void*>(table->data[function].func);
}

void* moduleInstance(HostCall& call, u32 function) {
  return call.granule.module().table(call.granule.instance())->data[function].module_instance;
}

// Runs keyval `keyval`'s delete callback for `value` on `comm`; returns
// what it returned.
int runDelete(HostCall& call, int comm, int keyval, const RankState::Keyval& entry, u32 value) {
  if (!entry.deleteFunction) return abi::kSuccess;
  using DeleteFn = uint32_t (*)(void*, u32, u32, u32, u32);
  auto callback = reinterpret_cast<DeleteFn>(guestCallback(call, entry.deleteFunction, 4));
  return int(callback(moduleInstance(call, entry.deleteFunction), u32(comm), u32(keyval), value,
                      entry.extraState));
}

// The keyval behind handle `keyval` for setting a new attribute, or null
// after raising on `comm`.
const RankState::Keyval* userKeyval(HostCall& call, int comm, int keyval) {
  auto found = call.rank.keyvals.find(keyval);
  if (found == call.rank.keyvals.end() || found->second.freed) {
    call.fail(comm, abi::kErrKeyval, "invalid keyval " + std::to_string(keyval));
    return nullptr;
  }
  return &found->second;
}

// The value of predefined key `keyval` on this rank, or false when it is
// not one.
bool predefinedAttribute(HostCall& call, int keyval, int32_t& value) {
  switch (keyval) {
    case abi::kAttrTagUb: value = abi::kTagUpperBound; return true;
    case abi::kAttrUniverseSize: value = call.world().size(); return true;
    case abi::kAttrAppnum: value = 0; return true;
    case abi::kAttrWtimeIsGlobal: value = 1; return true;
    case abi::kAttrHost: value = abi::kProcNull; return true;
    case abi::kAttrIo: value = call.rank.worldRank; return true;
    case abi::kAttrLastUsedCode: value = call.rank.lastUsedErrorCode; return true;
    default: return false;
  }
}

}  // namespace

namespace synergy::mpi {

int copyCommAttributes(HostCall& call, int from, int to) {
  CommHandle* source = call.rank.comm(from);
  if (!source || source->attributes.empty()) return abi::kSuccess;
  AttributeMap copies;
  if (int error = copyAttributes(call, from, from, AttributeMap(source->attributes), copies)) {
    // The copies made before the failing callback are deleted through
    // their keyvals, as on the new communicator, which the caller frees.
    deleteAttributes(call, from, to, copies);
    return error;
  }
  // The new handle may have moved in the table if a callback made
  // communicators, so it is looked up again.
  if (CommHandle* target = call.rank.comm(to)) target->attributes = std::move(copies);
  return abi::kSuccess;
}

int deleteCommAttributes(HostCall& call, int comm) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return abi::kSuccess;
  AttributeMap attributes = std::move(handle->attributes);
  handle->attributes.clear();
  return deleteAttributes(call, comm, comm, attributes);
}

int copyAttributes(HostCall& call, int errorComm, int object, const AttributeMap& attributes,
                   AttributeMap& copies) {
  for (const auto& [keyval, attribute] : attributes) {
    const RankState::Keyval& entry = call.rank.keyvals.at(keyval);
    if (!entry.copyFunction) continue;
    u32 cells = attributeCells(call, errorComm);
    if (!cells) return abi::kErrNoMem;
    u32 valueOut = cells + 4 * kCopyValueCell, flagOut = cells + 4 * kCopyFlagCell;
    call.store<u32>(valueOut, 0);
    call.store<int32_t>(flagOut, 0);
    using CopyFn = uint32_t (*)(void*, u32, u32, u32, u32, u32, u32);
    auto callback = reinterpret_cast<CopyFn>(guestCallback(call, entry.copyFunction, 6));
    int result = int(callback(moduleInstance(call, entry.copyFunction), u32(object), u32(keyval),
                              entry.extraState, attribute.value, valueOut, flagOut));
    if (result != abi::kSuccess)
      return call.fail(errorComm, result,
                       "the copy callback of keyval " + std::to_string(keyval) + " failed");
    int32_t flag;
    u32 copy;
    call.load(flagOut, flag);
    call.load(valueOut, copy);
    if (flag) copies[keyval] = Attribute{copy, call.rank.nextAttributeOrder++};
  }
  return abi::kSuccess;
}

int deleteAttributes(HostCall& call, int errorComm, int object, const AttributeMap& attributes) {
  std::vector<std::pair<int, Attribute>> newestFirst(attributes.begin(), attributes.end());
  std::sort(newestFirst.begin(), newestFirst.end(), [](const auto& a, const auto& b) {
    return a.second.setOrder > b.second.setOrder;
  });
  for (const auto& [keyval, attribute] : newestFirst) {
    int result = runDelete(call, object, keyval, call.rank.keyvals.at(keyval), attribute.value);
    if (result != abi::kSuccess)
      return call.fail(errorComm, result,
                       "the delete callback of keyval " + std::to_string(keyval) + " failed");
  }
  return abi::kSuccess;
}

int createKeyval(HostCall& call, u32 copyFunction, u32 deleteFunction, u32 keyvalOut,
                 u32 extraState) {
  if (!call.bytes(keyvalOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "keyval pointer outside linear memory");
  // Checked now, so that a bad pointer is refused here rather than when an
  // object is duplicated or freed.
  if (copyFunction) guestCallback(call, copyFunction, 6);
  if (deleteFunction) guestCallback(call, deleteFunction, 4);
  int keyval = call.rank.nextKeyval++;
  call.rank.keyvals[keyval] = RankState::Keyval{copyFunction, deleteFunction, extraState};
  call.store<int32_t>(keyvalOut, keyval);
  return abi::kSuccess;
}

int freeKeyval(HostCall& call, u32 keyvalAddr) {
  int32_t keyval;
  if (!call.load(keyvalAddr, keyval))
    return call.fail(abi::kCommWorld, abi::kErrArg, "keyval pointer outside linear memory");
  auto found = call.rank.keyvals.find(keyval);
  if (found == call.rank.keyvals.end() || found->second.freed)
    return call.fail(abi::kCommWorld, abi::kErrKeyval, "invalid keyval " + std::to_string(keyval));
  // Attributes set with it keep it alive for their callbacks.
  found->second.freed = true;
  call.store<int32_t>(keyvalAddr, -1);  // MPI_KEYVAL_INVALID
  return abi::kSuccess;
}

int setAttribute(HostCall& call, int errorComm, int object,
                 util::FunctionRef<AttributeMap*()> attributesOf, int keyval, u32 value) {
  const RankState::Keyval* entry = userKeyval(call, errorComm, keyval);
  if (!entry) return abi::kErrKeyval;
  AttributeMap* attributes = attributesOf();
  auto old = attributes->find(keyval);
  if (old != attributes->end()) {
    int result = runDelete(call, object, keyval, *entry, old->second.value);
    if (result != abi::kSuccess)
      return call.fail(errorComm, result,
                       "the delete callback of keyval " + std::to_string(keyval) + " failed");
    // A callback may have freed the object, or moved its attributes.
    if (!(attributes = attributesOf()))
      return call.fail(errorComm, abi::kErrArg, "object freed by a delete callback");
  }
  // A replaced value counts as set now, as OpenMPI counts it.
  (*attributes)[keyval] = Attribute{value, call.rank.nextAttributeOrder++};
  return abi::kSuccess;
}

int getAttribute(HostCall& call, int errorComm, const AttributeMap& attributes, int keyval,
                 u32 valueOut, u32 flagOut) {
  if (!call.bytes(valueOut, 4) || !call.bytes(flagOut, 4))
    return call.fail(errorComm, abi::kErrArg, "output outside linear memory");
  auto found = attributes.find(keyval);
  if (found == attributes.end()) {
    if (!call.rank.keyvals.count(keyval))
      return call.fail(errorComm, abi::kErrKeyval, "invalid keyval " + std::to_string(keyval));
    call.store<int32_t>(flagOut, 0);
    return abi::kSuccess;
  }
  call.store<u32>(valueOut, found->second.value);
  call.store<int32_t>(flagOut, 1);
  return abi::kSuccess;
}

int deleteAttribute(HostCall& call, int errorComm, int object,
                    util::FunctionRef<AttributeMap*()> attributesOf, int keyval) {
  AttributeMap* attributes = attributesOf();
  auto found = attributes->find(keyval);
  if (found == attributes->end())
    return call.fail(errorComm, abi::kErrKeyval, "no attribute with keyval " + std::to_string(keyval));
  Attribute attribute = found->second;
  // The attribute goes only once its delete callback agreed: one that
  // fails leaves it set (MPI-4.0 §7.7.2), for a later delete or free.
  int result = runDelete(call, object, keyval, call.rank.keyvals.at(keyval), attribute.value);
  if (result != abi::kSuccess)
    return call.fail(errorComm, result,
                     "the delete callback of keyval " + std::to_string(keyval) + " failed");
  // A callback may have freed the object, or set the attribute anew.
  if (!(attributes = attributesOf())) return abi::kSuccess;
  found = attributes->find(keyval);
  if (found != attributes->end() && found->second.setOrder == attribute.setOrder)
    attributes->erase(found);
  return abi::kSuccess;
}

}  // namespace synergy::mpi

namespace {

int setCommAttribute(HostCall& call, int comm, int keyval, u32 value) {
  if (!call.rank.comm(comm)) return call.fail(comm, abi::kErrComm, "invalid communicator");
  return setAttribute(
      call, comm, comm,
      [&]() -> AttributeMap* {
        CommHandle* handle = call.rank.comm(comm);
        return handle ? &handle->attributes : nullptr;
      },
      keyval, value);
}

int getCommAttribute(HostCall& call, int comm, int keyval, u32 valueOut, u32 flagOut) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (!call.bytes(valueOut, 4) || !call.bytes(flagOut, 4))
    return call.fail(comm, abi::kErrArg, "output outside linear memory");
  int32_t predefined;
  if (predefinedAttribute(call, keyval, predefined)) {
    // The value is handed out by address: the rank's cell for the key,
    // written again on every call.
    u32 cells = attributeCells(call, comm);
    if (!cells) return abi::kErrNoMem;
    u32 cell = cells + 4 * u32(keyval);
    call.store<int32_t>(cell, predefined);
    call.store<u32>(valueOut, cell);
    call.store<int32_t>(flagOut, 1);
    return abi::kSuccess;
  }
  return getAttribute(call, comm, handle->attributes, keyval, valueOut, flagOut);
}

int deleteCommAttribute(HostCall& call, int comm, int keyval) {
  if (!call.rank.comm(comm)) return call.fail(comm, abi::kErrComm, "invalid communicator");
  return deleteAttribute(
      call, comm, comm,
      [&]() -> AttributeMap* {
        CommHandle* handle = call.rank.comm(comm);
        return handle ? &handle->attributes : nullptr;
      },
      keyval);
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Comm_create_keyval(void* instance, u32 copyFunction, u32 deleteFunction,
                                  u32 keyvalOut, u32 extraState) {
  HostCall call(instance, "MPI_Comm_create_keyval");
  return createKeyval(call, copyFunction, deleteFunction, keyvalOut, extraState);
}

u32 Z_envZ_MPI_Comm_free_keyval(void* instance, u32 keyvalAddr) {
  HostCall call(instance, "MPI_Comm_free_keyval");
  return freeKeyval(call, keyvalAddr);
}

u32 Z_envZ_MPI_Comm_set_attr(void* instance, u32 comm, u32 keyval, u32 value) {
  HostCall call(instance, "MPI_Comm_set_attr");
  return setCommAttribute(call, int(comm), int(keyval), value);
}

u32 Z_envZ_MPI_Comm_get_attr(void* instance, u32 comm, u32 keyval, u32 valueOut, u32 flagOut) {
  HostCall call(instance, "MPI_Comm_get_attr");
  return getCommAttribute(call, int(comm), int(keyval), valueOut, flagOut);
}

u32 Z_envZ_MPI_Comm_delete_attr(void* instance, u32 comm, u32 keyval) {
  HostCall call(instance, "MPI_Comm_delete_attr");
  return deleteCommAttribute(call, int(comm), int(keyval));
}

// MPI-1's names for the same calls; its callbacks have the same types.
u32 Z_envZ_MPI_Keyval_create(void* instance, u32 copyFunction, u32 deleteFunction,
                             u32 keyvalOut, u32 extraState) {
  HostCall call(instance, "MPI_Keyval_create");
  return createKeyval(call, copyFunction, deleteFunction, keyvalOut, extraState);
}

u32 Z_envZ_MPI_Keyval_free(void* instance, u32 keyvalAddr) {
  HostCall call(instance, "MPI_Keyval_free");
  return freeKeyval(call, keyvalAddr);
}

u32 Z_envZ_MPI_Attr_put(void* instance, u32 comm, u32 keyval, u32 value) {
  HostCall call(instance, "MPI_Attr_put");
  return setCommAttribute(call, int(comm), int(keyval), value);
}

u32 Z_envZ_MPI_Attr_get(void* instance, u32 comm, u32 keyval, u32 valueOut, u32 flagOut) {
  HostCall call(instance, "MPI_Attr_get");
  return getCommAttribute(call, int(comm), int(keyval), valueOut, flagOut);
}

u32 Z_envZ_MPI_Attr_delete(void* instance, u32 comm, u32 keyval) {
  HostCall call(instance, "MPI_Attr_delete");
  return deleteCommAttribute(call, int(comm), int(keyval));
}

}  // extern "C"

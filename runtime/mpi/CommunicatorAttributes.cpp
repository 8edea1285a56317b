//===- CommunicatorAttributes.cpp - MPI keyvals and communicator attributes ===//
//
// Host functions for attribute caching on communicators: the predefined
// keys of MPI_COMM_WORLD (MPI_TAG_UB, ...), and keyvals the program makes
// with MPI_Comm_create_keyval, whose values it sets, reads and deletes, and
// whose copy and delete callbacks run when a communicator is duplicated or
// freed or an attribute is replaced or deleted.
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

#include "mpi/MpiAbi.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// The guest cells: one per predefined key (indexed by the key), then the
// copy callback's attribute_val_out and flag.
constexpr u32 kPredefinedCells = abi::kAttrUniverseSize + 1;
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
    default: return false;
  }
}

}  // namespace

namespace synergy::mpi {

int copyCommAttributes(HostCall& call, int from, int to) {
  CommHandle* source = call.rank.comm(from);
  if (!source || source->attributes.empty()) return abi::kSuccess;
  std::map<int, u32> copies;
  for (const auto& [keyval, value] : source->attributes) {
    const RankState::Keyval& entry = call.rank.keyvals.at(keyval);
    if (!entry.copyFunction) continue;
    u32 cells = attributeCells(call, from);
    if (!cells) return abi::kErrNoMem;
    u32 valueOut = cells + 4 * kCopyValueCell, flagOut = cells + 4 * kCopyFlagCell;
    call.store<u32>(valueOut, 0);
    call.store<int32_t>(flagOut, 0);
    using CopyFn = uint32_t (*)(void*, u32, u32, u32, u32, u32, u32);
    auto callback = reinterpret_cast<CopyFn>(guestCallback(call, entry.copyFunction, 6));
    int result = int(callback(moduleInstance(call, entry.copyFunction), u32(from), u32(keyval),
                              entry.extraState, value, valueOut, flagOut));
    if (result != abi::kSuccess)
      return call.fail(from, result,
                       "the copy callback of keyval " + std::to_string(keyval) + " failed");
    int32_t flag;
    u32 copy;
    call.load(flagOut, flag);
    call.load(valueOut, copy);
    if (flag) copies[keyval] = copy;
  }
  // The new handle may have moved in the table if a callback made
  // communicators, so it is looked up again.
  if (CommHandle* target = call.rank.comm(to)) target->attributes = std::move(copies);
  return abi::kSuccess;
}

int deleteCommAttributes(HostCall& call, int comm) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return abi::kSuccess;
  std::map<int, u32> attributes = std::move(handle->attributes);
  handle->attributes.clear();
  for (const auto& [keyval, value] : attributes) {
    int result = runDelete(call, comm, keyval, call.rank.keyvals.at(keyval), value);
    if (result != abi::kSuccess)
      return call.fail(comm, result,
                       "the delete callback of keyval " + std::to_string(keyval) + " failed");
  }
  return abi::kSuccess;
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Comm_create_keyval(void* instance, u32 copyFunction, u32 deleteFunction,
                                  u32 keyvalOut, u32 extraState) {
  HostCall call(instance, "MPI_Comm_create_keyval");
  if (!call.bytes(keyvalOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "keyval pointer outside linear memory");
  // Checked now, so that a bad pointer is refused here rather than when a
  // communicator is duplicated or freed.
  if (copyFunction) guestCallback(call, copyFunction, 6);
  if (deleteFunction) guestCallback(call, deleteFunction, 4);
  int keyval = call.rank.nextKeyval++;
  call.rank.keyvals[keyval] = RankState::Keyval{copyFunction, deleteFunction, extraState};
  call.store<int32_t>(keyvalOut, keyval);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_free_keyval(void* instance, u32 keyvalAddr) {
  HostCall call(instance, "MPI_Comm_free_keyval");
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

u32 Z_envZ_MPI_Comm_set_attr(void* instance, u32 comm, u32 keyval, u32 value) {
  HostCall call(instance, "MPI_Comm_set_attr");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  const RankState::Keyval* entry = userKeyval(call, int(comm), int(keyval));
  if (!entry) return abi::kErrKeyval;
  auto old = handle->attributes.find(int(keyval));
  if (old != handle->attributes.end()) {
    u32 oldValue = old->second;
    int result = runDelete(call, int(comm), int(keyval), *entry, oldValue);
    if (result != abi::kSuccess)
      return call.fail(int(comm), result,
                       "the delete callback of keyval " + std::to_string(int(keyval)) + " failed");
    handle = call.rank.comm(int(comm));
    if (!handle) return call.fail(int(comm), abi::kErrComm, "communicator freed by a callback");
  }
  handle->attributes[int(keyval)] = value;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_get_attr(void* instance, u32 comm, u32 keyval, u32 valueOut, u32 flagOut) {
  HostCall call(instance, "MPI_Comm_get_attr");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!call.bytes(valueOut, 4) || !call.bytes(flagOut, 4))
    return call.fail(int(comm), abi::kErrArg, "output outside linear memory");
  int32_t predefined;
  if (predefinedAttribute(call, int(keyval), predefined)) {
    // The value is handed out by address: the rank's cell for the key,
    // written again on every call.
    u32 cells = attributeCells(call, int(comm));
    if (!cells) return abi::kErrNoMem;
    u32 cell = cells + 4 * u32(keyval);
    call.store<int32_t>(cell, predefined);
    call.store<u32>(valueOut, cell);
    call.store<int32_t>(flagOut, 1);
    return abi::kSuccess;
  }
  auto found = handle->attributes.find(int(keyval));
  if (found == handle->attributes.end()) {
    if (!call.rank.keyvals.count(int(keyval)))
      return call.fail(int(comm), abi::kErrKeyval, "invalid keyval " + std::to_string(int(keyval)));
    call.store<int32_t>(flagOut, 0);
    return abi::kSuccess;
  }
  call.store<u32>(valueOut, found->second);
  call.store<int32_t>(flagOut, 1);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_delete_attr(void* instance, u32 comm, u32 keyval) {
  HostCall call(instance, "MPI_Comm_delete_attr");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  auto found = handle->attributes.find(int(keyval));
  if (found == handle->attributes.end())
    return call.fail(int(comm), abi::kErrKeyval,
                     "no attribute with keyval " + std::to_string(int(keyval)));
  u32 value = found->second;
  handle->attributes.erase(found);
  int result = runDelete(call, int(comm), int(keyval), call.rank.keyvals.at(int(keyval)), value);
  if (result != abi::kSuccess)
    return call.fail(int(comm), result,
                     "the delete callback of keyval " + std::to_string(int(keyval)) + " failed");
  return abi::kSuccess;
}

}  // extern "C"

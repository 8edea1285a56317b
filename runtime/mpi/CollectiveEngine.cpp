//===- CollectiveEngine.cpp - running one collective, reducing buffers ----===//
#include "mpi/CollectiveEngine.h"

#include <wasm-rt.h>

#include <optional>

#include "mpi/ReduceOp.h"

namespace synergy::mpi {

namespace {

const char* collectiveName(int kind) {
  static const char* const kNames[] = {
      "?",          "MPI_Barrier",   "MPI_Bcast",      "MPI_Reduce",
      "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv",    "MPI_Scatter",
      "MPI_Scatterv",  "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
      "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan",
      "MPI_Exscan", "a communicator constructor", "MPI_Win_create", "MPI_Win_fence",
      "MPI_Win_free", "a collective MPI_File call"};
  if (kind < 1 || kind > int(CollectiveKind::FileOperation)) return "?";
  return kNames[kind];
}

// Calls a guest function exported under `name` taking and returning i32.
bool callGuestAllocator(HostCall& call, uint32_t bytes, uint32_t& address) {
  using AllocFn = uint32_t (*)(void*, uint32_t);
  auto alloc = reinterpret_cast<AllocFn>(call.granule.module().exportedFunction("synergy_mpi_alloc"));
  if (!alloc) return false;
  address = alloc(call.granule.instance(), bytes);
  return address != 0;
}

void callGuestFree(HostCall& call, uint32_t address) {
  using FreeFn = void (*)(void*, uint32_t);
  auto release = reinterpret_cast<FreeFn>(call.granule.module().exportedFunction("synergy_mpi_free"));
  if (release) release(call.granule.instance(), address);
}

}  // namespace

int runCollective(HostCall& call, int commHandle, CollectiveKind kind,
                  util::FunctionRef<void(Contribution&)> fill,
                  util::FunctionRef<int(std::vector<Contribution>&, int)> body,
                  CollectiveReads reads, int readsSlotOf) {
  CommHandle* handle = call.rank.comm(commHandle);
  if (!handle) return call.fail(commHandle, abi::kErrComm, "invalid communicator");
  Communicator& comm = *handle->comm;
  // The two sides of an intercommunicator have no slots in common; its
  // collectives run elsewhere (IntercommCollectives.cpp).
  if (comm.inter)
    return call.fail(commHandle, abi::kErrComm,
                     std::string(call.name) + " is not supported on an intercommunicator");
  int worldRank = call.rank.worldRank;
  int me = comm.rankOfWorld[worldRank];
  int size = comm.size();
  World& world = call.world();
  // Members on other hosts never post into this host's slots.
  if (world.spansHosts(comm))
    return call.fail(commHandle, abi::kErrUnsupportedOperation,
                     std::string(call.name) + " on a communicator whose ranks span hosts is not "
                                              "supported yet");
  WaitInfo info{call.name, 0, 0, &comm};
  MemberProgress& progress = comm.progressOf[me];
  // Waits until every member has finished collective `sequence`, looking
  // at the marks only for members not already known to have.
  auto awaitFinished = [&](uint64_t sequence) {
    for (int i = 0; i < size; ++i) {
      uint64_t& known = progress.finishedOf[i];
      if (known >= sequence) continue;
      std::atomic<uint64_t>& mark = comm.finishedUpTo[i].value;
      if (!world.waitUntilReady(worldRank, info, [&] {
            return mark.load(std::memory_order_acquire) >= sequence;
          }))
        call.leaveAbortedJob();
      // Acquire again: later collectives rely on the value read here.
      known = mark.load(std::memory_order_acquire);
    }
  };
  uint64_t sequence = ++progress.collectives;
  std::vector<Contribution>& slots = comm.slotSets[sequence % Communicator::kSlotSets];
  // This slot set was last used by collective sequence - kSlotSets.
  if (sequence > Communicator::kSlotSets) awaitFinished(sequence - Communicator::kSlotSets);
  Contribution& slot = slots[me];
  slot.reset();
  slot.kind = int(kind);
  fill(slot);
  world.publishMark(worldRank, comm, slot.posted, sequence);
  // A member posts collective `sequence` only after it has finished the
  // one before.
  auto awaitPosted = [&](int i) {
    std::atomic<uint64_t>& posted = slots[i].posted;
    if (posted.load(std::memory_order_acquire) < sequence &&
        !world.waitUntilReady(worldRank, info, [&] {
          return posted.load(std::memory_order_acquire) >= sequence;
        }))
      call.leaveAbortedJob();
    progress.finishedOf[i] = std::max(progress.finishedOf[i], sequence - 1);
  };
  if (readsSlotOf == kEveryMember) {
    for (int i = 0; i < size; ++i) awaitPosted(i);
  } else {
    awaitPosted(readsSlotOf);
  }
  int result = abi::kSuccess;
  for (int i = 0; i < size && result == abi::kSuccess; ++i) {
    if (readsSlotOf != kEveryMember && i != readsSlotOf) continue;
    if (slots[i].kind != slot.kind)
      result = call.fail(commHandle, abi::kErrOther,
                         std::string("collective mismatch: rank ") + std::to_string(me) +
                             " called " + collectiveName(slot.kind) + " while rank " +
                             std::to_string(i) + " called " +
                             collectiveName(slots[i].kind));
  }
  if (result == abi::kSuccess) result = body(slots, me);
  world.publishMark(worldRank, comm, comm.finishedUpTo[me].value, sequence);
  progress.finishedOf[me] = sequence;
  if (reads == CollectiveReads::MemberMemories) awaitFinished(sequence);
  return result;
}

void awaitMembers(HostCall& call, int commHandle) {
  Communicator& comm = *call.rank.comm(commHandle)->comm;
  WaitInfo info{call.name, 0, 0, &comm};
  if (!call.world().arrive(comm, comm.rankOfWorld[call.rank.worldRank], info))
    call.leaveAbortedJob();
}

const uint8_t* stageCopy(Contribution& slot, const uint8_t* base, const TypeLayout& type,
                         int64_t count) {
  ByteSpan span = touchedSpan(type, count);
  if (span.empty()) return base;
  if (span.last - span.first <= Contribution::kInlineBytes) {
    std::memcpy(slot.inlineData, base + span.first, size_t(span.last - span.first));
    return slot.inlineData - span.first;
  }
  slot.staged.assign(base + span.first, base + span.last);
  return slot.staged.data() - span.first;
}

namespace {

using UserFunction = void (*)(void*, uint32_t, uint32_t, uint32_t, uint32_t);

// The guest function user op `op` names, checked as a call_indirect of
// MPI_User_function's wasm type, (i32, i32, i32, i32) -> (), would check it:
// the table index came from the guest (MPI_Op_create) or a checkpoint and
// may name a function of any type, which must never be called as this one.
// A copy, so a table the op itself grows cannot leave it dangling.
std::optional<wasm_rt_funcref_t> userOpFunction(HostCall& call, int op) {
  static const uint32_t userFunctionType = wasm_rt_register_func_type(
      4, 0, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32);
  const UserOp* user = call.rank.opOfStartedReduction(op);
  auto* table = call.granule.module().table(call.granule.instance());
  if (!user || !table || user->function >= table->size)
    return std::nullopt;
  const wasm_rt_funcref_t& entry = table->data[user->function];
  if (!entry.func || entry.func_type != userFunctionType)
    return std::nullopt;
  return entry;
}

}  // namespace

int applyUserOpPacked(HostCall& call, int comm, int op, int typeHandle, const TypeLayout& type,
                      int64_t count, const uint8_t* in, uint8_t* inout) {
  std::optional<wasm_rt_funcref_t> function = userOpFunction(call, op);
  if (!function)
    return call.fail(comm, abi::kErrOp, "user op is not a function of MPI_User_function's type");
  ByteSpan span = touchedSpan(type, count);
  uint32_t spanBytes = uint32_t(span.last - span.first);
  // The len and datatype arguments, then each operand's span.
  uint32_t scratch;
  if (!callGuestAllocator(call, 8 + 2 * spanBytes, scratch))
    return call.fail(comm, abi::kErrNoMem, "cannot allocate scratch space for a user-defined op");
  uint32_t inGuest = scratch + 8 - uint32_t(span.first);
  uint32_t inoutGuest = inGuest + spanBytes;
  int32_t args[2] = {int32_t(count), typeHandle};
  std::memcpy(call.granule.memoryBase() + scratch, args, sizeof(args));
  unpackTyped(in, call.granule.memoryBase() + inGuest, type, count);
  unpackTyped(inout, call.granule.memoryBase() + inoutGuest, type, count);
  reinterpret_cast<UserFunction>(function->func)(function->module_instance, inGuest, inoutGuest,
                                                 scratch, scratch + 4);
  // The function may have grown memory: the base is read again.
  packTyped(call.granule.memoryBase() + inoutGuest, type, count, inout);
  callGuestFree(call, scratch);
  return abi::kSuccess;
}

int checkOp(HostCall& call, int comm, int op, const TypeLayout& type) {
  if (!call.rank.isOp(op)) return call.fail(comm, abi::kErrOp, "invalid op " + std::to_string(op));
  if (op <= abi::kLastPredefinedOp && !opAppliesTo(PredefinedOp(op), type.element))
    return call.fail(comm, abi::kErrOp,
                     std::string(predefinedOpName(op)) + " is not defined on this datatype");
  return abi::kSuccess;
}

int reduceInto(HostCall& call, int op, int typeHandle, const TypeLayout& type, int64_t count,
               int sourceCount, util::FunctionRef<const uint8_t*(int)> source, uint8_t* out,
               uint32_t outGuest) {
  if (sourceCount == 0 || count == 0) return abi::kSuccess;
  int last = sourceCount - 1;
  if (op <= abi::kLastPredefinedOp) {
    PredefinedOp predefined = PredefinedOp(op);
    int64_t elements = count * type.elementsPerInstance();
    if (type.isContiguous()) {
      int64_t bytes = type.size * count;
      if (out + type.lb != source(last) + type.lb)
        std::memcpy(out + type.lb, source(last) + type.lb, size_t(bytes));
      for (int i = last - 1; i >= 0; --i)
        applyPredefinedOp(predefined, type.element, source(i) + type.lb, out + type.lb, elements);
      return abi::kSuccess;
    }
    std::vector<uint8_t> accumulator(size_t(type.size * count));
    std::vector<uint8_t> operand(accumulator.size());
    packTyped(source(last), type, count, accumulator.data());
    for (int i = last - 1; i >= 0; --i) {
      packTyped(source(i), type, count, operand.data());
      applyPredefinedOp(predefined, type.element, operand.data(), accumulator.data(), elements);
    }
    unpackTyped(accumulator.data(), out, type, count);
    return abi::kSuccess;
  }

  // A user op runs in the guest, so its operands must be in guest memory:
  // the result accumulates in `out`, each other operand is copied into a
  // scratch block borrowed from the guest's allocator.
  std::optional<wasm_rt_funcref_t> function = userOpFunction(call, op);
  if (!function)
    return call.fail(abi::kCommWorld, abi::kErrOp,
                     "user op is not a function of MPI_User_function's type");
  ByteSpan span = touchedSpan(type, count);
  uint32_t scratch;
  uint32_t scratchBytes = uint32_t(span.last - span.first) + 8;
  if (!callGuestAllocator(call, scratchBytes, scratch))
    return call.fail(abi::kCommWorld, abi::kErrNoMem,
                     "cannot allocate scratch space for a user-defined op");
  uint32_t operandGuest = scratch + 8 - uint32_t(span.first);
  int32_t args[2] = {int32_t(count), typeHandle};
  copyTyped(source(last), type, count, out, type, count, type.size * count);
  auto invoke = reinterpret_cast<UserFunction>(function->func);
  for (int i = last - 1; i >= 0; --i) {
    uint8_t* operand = call.granule.memoryBase() + operandGuest;
    copyTyped(source(i), type, count, operand, type, count, type.size * count);
    // The op may write through its len and datatype pointers; reset them.
    std::memcpy(call.granule.memoryBase() + scratch, args, sizeof(args));
    invoke(function->module_instance, operandGuest, outGuest, scratch, scratch + 4);
  }
  callGuestFree(call, scratch);
  return abi::kSuccess;
}

}  // namespace synergy::mpi

//===- CollectiveEngine.cpp - running one collective, reducing buffers ----===//
#include "mpi/CollectiveEngine.h"

#include <wasm-rt.h>

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
      "MPI_Win_free"};
  if (kind < 1 || kind > int(CollectiveKind::WinFree)) return "?";
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
                  const std::function<void(Contribution&)>& fill,
                  const std::function<int(std::vector<Contribution>&, int)>& body,
                  CollectiveReads reads, int readsSlotOf) {
  CommHandle* handle = call.rank.comm(commHandle);
  if (!handle) return call.fail(commHandle, abi::kErrComm, "invalid communicator");
  std::shared_ptr<Communicator> comm = handle->comm;
  int me = comm->rankOfWorld[call.rank.worldRank];
  int size = comm->size();
  WaitInfo info{call.name, 0, 0, comm.get()};
  auto everyMemberHas = [&](const std::atomic<uint64_t>* marks, uint64_t value) {
    return [=] {
      for (int i = 0; i < size; ++i)
        if (marks[i].load() < value) return false;
      return true;
    };
  };
  auto await = [&](const std::function<bool()>& ready) {
    if (!call.world().waitUntilReady(call.rank.worldRank, info, ready)) call.leaveAbortedJob();
  };
  uint64_t sequence = ++comm->collectivesOfMember[me];
  // This slot set was last used by collective sequence - 2.
  if (sequence > 2) await(everyMemberHas(comm->finishedUpTo.get(), sequence - 2));
  std::vector<Contribution>& slots = comm->slotSets[sequence % 2];
  Contribution& slot = slots[me];
  // The staging buffer keeps its capacity from one collective to the next.
  std::vector<uint8_t> staged = std::move(slot.staged);
  staged.clear();
  slot = Contribution{};
  slot.staged = std::move(staged);
  slot.kind = int(kind);
  fill(slot);
  call.world().publishMark(*comm, comm->postedUpTo[me], sequence);
  std::atomic<uint64_t>* posted = comm->postedUpTo.get();
  if (readsSlotOf == kEveryMember)
    await(everyMemberHas(posted, sequence));
  else
    await([=] { return posted[readsSlotOf].load() >= sequence; });
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
  call.world().publishMark(*comm, comm->finishedUpTo[me], sequence);
  if (reads == CollectiveReads::MemberMemories)
    await(everyMemberHas(comm->finishedUpTo.get(), sequence));
  return result;
}

void awaitMembers(HostCall& call, int commHandle) {
  Communicator& comm = *call.rank.comm(commHandle)->comm;
  WaitInfo info{call.name, 0, 0, &comm};
  if (!call.world().arrive(comm, comm.rankOfWorld[call.rank.worldRank], info))
    call.leaveAbortedJob();
}

const uint8_t* stageCopy(std::vector<uint8_t>& staged, const uint8_t* base,
                            const TypeLayout& type, int64_t count) {
  ByteSpan span = touchedSpan(type, count);
  if (span.empty()) return base;
  staged.assign(base + span.first, base + span.last);
  return staged.data() - span.first;
}

int checkOp(HostCall& call, int comm, int op, const TypeLayout& type) {
  if (!call.rank.isOp(op)) return call.fail(comm, abi::kErrOp, "invalid op " + std::to_string(op));
  if (op <= abi::kLastPredefinedOp && !opAppliesTo(PredefinedOp(op), type.element))
    return call.fail(comm, abi::kErrOp,
                     std::string(predefinedOpName(op)) + " is not defined on this datatype");
  return abi::kSuccess;
}

int reduceInto(HostCall& call, int op, int typeHandle, const TypeLayout& type, int64_t count,
               const std::vector<const uint8_t*>& sources, uint8_t* out, uint32_t outGuest) {
  if (sources.empty() || count == 0) return abi::kSuccess;
  int64_t last = int64_t(sources.size()) - 1;
  if (op <= abi::kLastPredefinedOp) {
    PredefinedOp predefined = PredefinedOp(op);
    int64_t elements = count * type.elementsPerInstance();
    if (type.isContiguous()) {
      int64_t bytes = type.size * count;
      if (out + type.lb != sources[last] + type.lb)
        std::memcpy(out + type.lb, sources[last] + type.lb, size_t(bytes));
      for (int64_t i = last - 1; i >= 0; --i)
        applyPredefinedOp(predefined, type.element, sources[i] + type.lb, out + type.lb, elements);
      return abi::kSuccess;
    }
    std::vector<uint8_t> accumulator(size_t(type.size * count));
    std::vector<uint8_t> operand(accumulator.size());
    packTyped(sources[last], type, count, accumulator.data());
    for (int64_t i = last - 1; i >= 0; --i) {
      packTyped(sources[i], type, count, operand.data());
      applyPredefinedOp(predefined, type.element, operand.data(), accumulator.data(), elements);
    }
    unpackTyped(accumulator.data(), out, type, count);
    return abi::kSuccess;
  }

  // A user op runs in the guest, so its operands must be in guest memory:
  // the result accumulates in `out`, each other operand is copied into a
  // scratch block borrowed from the guest's allocator.
  const UserOp* user = call.rank.userOp(op);
  auto* table = call.granule.module().table(call.granule.instance());
  if (!user || !table || user->function >= table->size || !table->data[user->function].func)
    return call.fail(abi::kCommWorld, abi::kErrOp, "user op is not a valid function");
  ByteSpan span = touchedSpan(type, count);
  uint32_t scratch;
  uint32_t scratchBytes = uint32_t(span.last - span.first) + 8;
  if (!callGuestAllocator(call, scratchBytes, scratch))
    return call.fail(abi::kCommWorld, abi::kErrNoMem,
                     "cannot allocate scratch space for a user-defined op");
  uint32_t operandGuest = scratch + 8 - uint32_t(span.first);
  int32_t args[2] = {int32_t(count), typeHandle};
  copyTyped(sources[last], type, count, out, type, count, type.size * count);
  const wasm_rt_funcref_t& function = table->data[user->function];
  using UserFn = void (*)(void*, uint32_t, uint32_t, uint32_t, uint32_t);
  auto invoke = reinterpret_cast<UserFn>(function.func);
  for (int64_t i = last - 1; i >= 0; --i) {
    uint8_t* operand = call.granule.memoryBase() + operandGuest;
    copyTyped(sources[i], type, count, operand, type, count, type.size * count);
    // The op may write through its len and datatype pointers; reset them.
    std::memcpy(call.granule.memoryBase() + scratch, args, sizeof(args));
    invoke(function.module_instance, operandGuest, outGuest, scratch, scratch + 4);
  }
  callGuestFree(call, scratch);
  return abi::kSuccess;
}

}  // namespace synergy::mpi

//===- OneSided.cpp - MPI windows with fence synchronisation --------------===//
//
// A window is every member's (base, size, displacement unit), exchanged once
// when it is created. Since all ranks live in this process, MPI_Put, MPI_Get
// and MPI_Accumulate act on the target's memory immediately; MPI_Win_fence is
// a barrier, which is all a fence epoch needs when operations complete at
// once. Accumulates hold the World lock so concurrent ones on the same
// target location are atomic per element, as MPI requires.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <iterator>

#include "mpi/CollectiveEngine.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"
#include "mpi/ReduceOp.h"
#include "mpi/WindowAttributes.h"

namespace synergy::mpi {

struct Window {
  int commHandle = 0;
  std::shared_ptr<Communicator> comm;
  std::vector<uint8_t*> bases;
  std::vector<int64_t> sizes;
  std::vector<int64_t> dispUnits;
  uint32_t allocatedGuest = 0;  // MPI_Win_allocate memory, freed with the window
  int flavor = abi::kWinFlavorCreate;
  // Guest memory holding this rank's attribute values (base, size, disp
  // unit, flavor, model), made by the first MPI_Win_get_attr: the guest is
  // handed pointers to them. Freed with the window.
  uint32_t attributesGuest = 0;
};

}  // namespace synergy::mpi

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

u32 createWindow(HostCall& call, uint8_t* base, int64_t size, int dispUnit, int comm, u32 winOut,
                 uint32_t allocatedGuest, int flavor) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (!call.bytes(winOut, 4)) return call.fail(comm, abi::kErrArg, "win pointer outside memory");
  auto window = std::make_shared<Window>();
  window->commHandle = comm;
  window->comm = handle->comm;
  window->allocatedGuest = allocatedGuest;
  window->flavor = flavor;
  int result = runCollective(
      call, comm, CollectiveKind::WinCreate,
      [&](Contribution& slot) {
        slot.recv = base;
        slot.recvCount = size;
        slot.key = dispUnit;
      },
      [&](std::vector<Contribution>& slots, int) {
        for (const Contribution& slot : slots) {
          window->bases.push_back(slot.recv);
          window->sizes.push_back(slot.recvCount);
          window->dispUnits.push_back(slot.key);
        }
        return int(abi::kSuccess);
      });
  if (result) return result;
  call.store<int32_t>(winOut, call.rank.addWindow(window));
  return abi::kSuccess;
}

struct Target {
  std::shared_ptr<Window> window;
  uint8_t* origin = nullptr;
  Layout originType;
  uint8_t* target = nullptr;
  Layout targetType;
  int64_t originCount = 0;
  int64_t targetCount = 0;
};

// Resolves both sides of a one-sided operation; returns 0 or the error.
int resolveTarget(HostCall& call, u32 originAddr, int originCount, int originType, int targetRank,
                  int64_t targetDisp, int targetCount, int targetType, int win, Target& out) {
  out.window = call.rank.window(win);
  if (!out.window) return call.fail(abi::kCommWorld, abi::kErrWin, "invalid window");
  int comm = out.window->commHandle;
  if (targetRank < 0 || targetRank >= out.window->comm->size())
    return call.fail(comm, abi::kErrRank, "invalid target rank " + std::to_string(targetRank));
  out.originType = call.rank.type(originType);
  out.targetType = call.rank.type(targetType);
  if (!out.originType || !out.targetType) return call.fail(comm, abi::kErrType, "invalid datatype");
  if (originCount < 0 || targetCount < 0) return call.fail(comm, abi::kErrCount, "negative count");
  bool ok;
  out.origin = call.typedBuffer(originAddr, *out.originType, originCount, ok);
  if (!ok) return call.fail(comm, abi::kErrBuffer, "origin buffer outside linear memory");
  int64_t offset = targetDisp * out.window->dispUnits[targetRank];
  ByteSpan span = touchedSpan(*out.targetType, targetCount);
  if (!span.empty() &&
      (offset + span.first < 0 || offset + span.last > out.window->sizes[targetRank]))
    return call.fail(comm, abi::kErrRmaRange, "target range is outside the target's window");
  if (out.originType->size * originCount != out.targetType->size * targetCount)
    return call.fail(comm, abi::kErrArg, "origin and target sizes differ");
  out.target = out.window->bases[targetRank] + offset;
  out.originCount = originCount;
  out.targetCount = targetCount;
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Win_create(void* instance, u32 base, u32 size, u32 dispUnit, u32 info, u32 comm,
                          u32 winOut) {
  HostCall call(instance, "MPI_Win_create");
  (void)info;
  int64_t bytes = int32_t(size);
  uint8_t* host = call.bytes(base, uint64_t(std::max<int64_t>(bytes, 0)));
  if (bytes < 0 || !host) return call.fail(int(comm), abi::kErrArg, "window memory outside linear memory");
  return createWindow(call, host, bytes, int(dispUnit), int(comm), winOut, 0,
                      abi::kWinFlavorCreate);
}

u32 Z_envZ_MPI_Win_allocate(void* instance, u32 size, u32 dispUnit, u32 info, u32 comm,
                            u32 baseptrOut, u32 winOut) {
  HostCall call(instance, "MPI_Win_allocate");
  (void)info;
  int64_t bytes = int32_t(size);
  if (bytes < 0) return call.fail(int(comm), abi::kErrArg, "negative window size");
  using AllocFn = uint32_t (*)(void*, uint32_t);
  auto alloc = reinterpret_cast<AllocFn>(call.granule.module().exportedFunction("synergy_mpi_alloc"));
  uint32_t guest = alloc ? alloc(call.granule.instance(), uint32_t(std::max<int64_t>(bytes, 1))) : 0;
  if (!guest) return call.fail(int(comm), abi::kErrNoMem, "cannot allocate window memory");
  if (!call.store<uint32_t>(baseptrOut, guest))
    return call.fail(int(comm), abi::kErrArg, "baseptr outside linear memory");
  return createWindow(call, call.granule.memoryBase() + guest, bytes, int(dispUnit), int(comm),
                      winOut, guest, abi::kWinFlavorAllocate);
}

// The C binding hands back a pointer to each value, so the values live in
// guest memory: one block per window and rank, written when first asked for.
u32 Z_envZ_MPI_Win_get_attr(void* instance, u32 win, u32 keyval, u32 valueOut, u32 flagOut) {
  HostCall call(instance, "MPI_Win_get_attr");
  auto window = call.rank.window(int(win));
  if (!window) return call.fail(abi::kCommWorld, abi::kErrWin, "invalid window");
  int comm = window->commHandle;
  static constexpr int kAttributes[] = {abi::kWinAttrBase, abi::kWinAttrSize,
                                        abi::kWinAttrDispUnit, abi::kWinAttrCreateFlavor,
                                        abi::kWinAttrModel};
  const int* slot = std::find(std::begin(kAttributes), std::end(kAttributes), int(keyval));
  if (slot == std::end(kAttributes))
    return getWindowAttribute(call, comm, int(win), int(keyval), valueOut, flagOut);
  if (!window->attributesGuest) {
    using AllocFn = uint32_t (*)(void*, uint32_t);
    auto alloc =
        reinterpret_cast<AllocFn>(call.granule.module().exportedFunction("synergy_mpi_alloc"));
    uint32_t block = alloc ? alloc(call.granule.instance(), 4 * std::size(kAttributes)) : 0;
    if (!block) return call.fail(comm, abi::kErrNoMem, "no guest memory for window attributes");
    int me = window->comm->rankOfWorld[call.rank.worldRank];
    uint32_t base = uint32_t(window->bases[me] - call.granule.memoryBase());
    call.store<uint32_t>(block, base);
    call.store<int32_t>(block + 4, int32_t(window->sizes[me]));
    call.store<int32_t>(block + 8, int32_t(window->dispUnits[me]));
    call.store<int32_t>(block + 12, window->flavor);
    call.store<int32_t>(block + 16, abi::kWinUnified);
    window->attributesGuest = block;
  }
  uint32_t cell = window->attributesGuest + 4 * uint32_t(slot - std::begin(kAttributes));
  // MPI_WIN_BASE's value is the base itself, the others point to theirs.
  if (int(keyval) == abi::kWinAttrBase) call.load(cell, cell);
  if (!call.store<uint32_t>(valueOut, cell) || !call.store<int32_t>(flagOut, 1))
    return call.fail(comm, abi::kErrArg, "output outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_fence(void* instance, u32 assertion, u32 win) {
  HostCall call(instance, "MPI_Win_fence");
  (void)assertion;
  auto window = call.rank.window(int(win));
  if (!window) return call.fail(abi::kCommWorld, abi::kErrWin, "invalid window");
  return runCollective(
      call, window->commHandle, CollectiveKind::WinFence, [](Contribution&) {},
      [](std::vector<Contribution>&, int) { return abi::kSuccess; });
}

u32 Z_envZ_MPI_Win_free(void* instance, u32 winAddr) {
  HostCall call(instance, "MPI_Win_free");
  int32_t win;
  std::shared_ptr<Window> window;
  if (!call.load(winAddr, win) || !(window = call.rank.window(win)))
    return call.fail(abi::kCommWorld, abi::kErrWin, "invalid window");
  if (int error = deleteWindowAttributes(call, win)) return error;
  int result = runCollective(
      call, window->commHandle, CollectiveKind::WinFree, [](Contribution&) {},
      [](std::vector<Contribution>&, int) { return abi::kSuccess; });
  if (result) return result;
  using FreeFn = void (*)(void*, uint32_t);
  auto release =
      reinterpret_cast<FreeFn>(call.granule.module().exportedFunction("synergy_mpi_free"));
  for (uint32_t guest : {window->allocatedGuest, window->attributesGuest})
    if (guest && release) release(call.granule.instance(), guest);
  call.rank.freeWindow(win);
  call.store<int32_t>(winAddr, abi::kWinNull);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Put(void* instance, u32 origin, u32 originCount, u32 originType, u32 targetRank,
                   u32 targetDisp, u32 targetCount, u32 targetType, u32 win) {
  HostCall call(instance, "MPI_Put");
  Target t;
  if (int e = resolveTarget(call, origin, int(originCount), int(originType), int(targetRank),
                            int32_t(targetDisp), int(targetCount), int(targetType), int(win), t))
    return e;
  copyTyped(t.origin, *t.originType, t.originCount, t.target, *t.targetType, t.targetCount,
            t.originType->size * t.originCount);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Get(void* instance, u32 origin, u32 originCount, u32 originType, u32 targetRank,
                   u32 targetDisp, u32 targetCount, u32 targetType, u32 win) {
  HostCall call(instance, "MPI_Get");
  Target t;
  if (int e = resolveTarget(call, origin, int(originCount), int(originType), int(targetRank),
                            int32_t(targetDisp), int(targetCount), int(targetType), int(win), t))
    return e;
  copyTyped(t.target, *t.targetType, t.targetCount, t.origin, *t.originType, t.originCount,
            t.originType->size * t.originCount);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Accumulate(void* instance, u32 origin, u32 originCount, u32 originType,
                          u32 targetRank, u32 targetDisp, u32 targetCount, u32 targetType, u32 op,
                          u32 win) {
  HostCall call(instance, "MPI_Accumulate");
  Target t;
  if (int e = resolveTarget(call, origin, int(originCount), int(originType), int(targetRank),
                            int32_t(targetDisp), int(targetCount), int(targetType), int(win), t))
    return e;
  int o = int(op);
  if (o < 1 || o > abi::kLastPredefinedOp || !opAppliesTo(PredefinedOp(o), t.targetType->element))
    return call.fail(t.window->commHandle, abi::kErrOp, "invalid op for MPI_Accumulate");
  std::vector<uint8_t> operand(size_t(t.originType->size * t.originCount));
  packTyped(t.origin, *t.originType, t.originCount, operand.data());
  std::vector<uint8_t> current(operand.size());
  int64_t elements = t.targetCount * t.targetType->elementsPerInstance();
  call.world().locked([&] {
    packTyped(t.target, *t.targetType, t.targetCount, current.data());
    applyPredefinedOp(PredefinedOp(o), t.targetType->element, operand.data(), current.data(),
                      elements);
    unpackTyped(current.data(), t.target, *t.targetType, t.targetCount);
  });
  return abi::kSuccess;
}

}  // extern "C"

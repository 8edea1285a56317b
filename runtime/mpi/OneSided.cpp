//===- OneSided.cpp - MPI windows with fence synchronisation --------------===//
//
// A window is every member's (base, size, displacement unit), exchanged once
// when it is created, plus the WindowSync all members share (Window.h).
// Since all ranks live in this process, MPI_Put, MPI_Get and MPI_Accumulate
// act on the target's memory immediately; MPI_Win_fence is a barrier, which
// is all a fence epoch needs when operations complete at once. It runs on
// the window's own context (WindowSync::fences), so that threads fencing
// different windows of one communicator cannot pair up. Accumulates
// hold the World lock so concurrent ones on the same target location are
// atomic per element, as MPI requires.
//
// This file also holds what the other one-sided files share: window
// creation, the window error handler, and the check of every operation's
// target range against the target's part of the window. A window whose
// members span hosts is made and synchronised by RemoteWindows.cpp, and
// an operation on a member of another host goes there too.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <iterator>

#include "mpi/CollectiveEngine.h"
#include "mpi/MpiAbi.h"
#include "mpi/ReduceOp.h"
#include "mpi/Window.h"
#include "mpi/WindowAttributes.h"

namespace synergy::mpi {

WindowSync::WindowSync(int members)
    : lockOf(new std::atomic<int64_t>[size_t(members)]),
      grants(new std::atomic<int64_t>[size_t(members) * size_t(members)]),
      completions(new std::atomic<int64_t>[size_t(members)]),
      attached(size_t(members)),
      here(size_t(members)) {
  for (int i = 0; i < members; ++i) {
    lockOf[i].store(0);
    completions[i].store(0);
  }
  for (int i = 0; i < members * members; ++i) grants[i].store(0);
}

uint32_t createWindow(HostCall& call, uint8_t* base, int64_t size, int dispUnit, int comm,
                      uint32_t winOut, uint32_t allocatedGuest, int flavor) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (call.world().spansHosts(*handle->comm))
    return createSpanningWindow(call, base, size, dispUnit, comm, winOut, allocatedGuest, flavor);
  if (!call.bytes(winOut, 4)) return call.fail(comm, abi::kErrArg, "win pointer outside memory");
  auto window = std::make_shared<Window>();
  window->commHandle = comm;
  window->comm = handle->comm;
  window->allocatedGuest = allocatedGuest;
  window->flavor = flavor;
  window->me = handle->comm->rankOfWorld[call.rank.worldRank];
  window->lockHeld.assign(size_t(handle->comm->size()), HeldLock::None);
  // Member 0 makes the shared state; the others copy its pointer out of
  // member 0's slot while it waits for them to finish reading.
  std::shared_ptr<WindowSync> sync;
  if (window->me == 0) {
    sync = std::make_shared<WindowSync>(handle->comm->size());
    call.world().locked(
        [&] { sync->fences = call.world().makeCommunicator(handle->comm->worldRanks); });
  }
  int result = runCollective(
      call, comm, CollectiveKind::WinCreate,
      [&](Contribution& slot) {
        slot.recv = base;
        slot.recvCount = size;
        slot.key = dispUnit;
        slot.send = reinterpret_cast<const uint8_t*>(&sync);
      },
      [&](std::vector<Contribution>& slots, int) {
        window->sync = *reinterpret_cast<const std::shared_ptr<WindowSync>*>(slots[0].send);
        for (const Contribution& slot : slots) {
          window->bases.push_back(slot.recv);
          window->sizes.push_back(slot.recvCount);
          window->dispUnits.push_back(slot.key);
        }
        return int(abi::kSuccess);
      });
  if (result) return result;
  if (!window->sync->fences)
    return call.fail(comm, abi::kErrIntern, "no communicator context left for the window");
  window->fenceCommHandle = call.rank.addComm(window->sync->fences, abi::kErrorsReturn);
  window->fenceContext = window->sync->fences->context;
  registerWindowHere(call.world(), window);
  call.store<int32_t>(winOut, call.rank.addWindow(window));
  return abi::kSuccess;
}

// A collective of the window's members on its own context (WindowSync::
// fences): a fence or MPI_Win_free, which complete nothing more here.
static int windowCollective(HostCall& call, Window& window, CollectiveKind kind) {
  int result = runCollective(
      call, window.fenceCommHandle, kind, [](Contribution&) {},
      [](std::vector<Contribution>&, int) { return abi::kSuccess; });
  return result ? failOnWindow(call, window, result,
                               "the members called MPI_Win_fence and MPI_Win_free together")
                : abi::kSuccess;
}

uint32_t allocateWindow(HostCall& call, int64_t size, int dispUnit, int comm,
                        uint32_t baseptrOut, uint32_t winOut, int flavor) {
  if (size < 0) return call.fail(comm, abi::kErrArg, "negative window size");
  using AllocFn = uint32_t (*)(void*, uint32_t);
  auto alloc = reinterpret_cast<AllocFn>(call.granule.module().exportedFunction("synergy_mpi_alloc"));
  uint32_t guest = alloc ? alloc(call.granule.instance(), uint32_t(std::max<int64_t>(size, 1))) : 0;
  if (!guest) return call.fail(comm, abi::kErrNoMem, "cannot allocate window memory");
  if (!call.store<uint32_t>(baseptrOut, guest))
    return call.fail(comm, abi::kErrArg, "baseptr outside linear memory");
  return createWindow(call, call.granule.memoryBase() + guest, size, dispUnit, comm, winOut,
                      guest, flavor);
}

int failOnWindow(HostCall& call, const Window& window, int errorClass, const std::string& reason) {
  if (window.errhandler == abi::kErrorsReturn) return errorClass;
  if (window.errhandler != abi::kErrorsAreFatal) {
    callUserWindowErrorHandler(call, window, errorClass);
    return errorClass;
  }
  std::string message = "rank " + std::to_string(call.rank.worldRank) + ": " + call.name + ": " +
                        reason + " (" + errorClassName(errorClass) + ")";
  call.world().abort(errorClass, message);
  call.granule.exit(errorClass);
}

std::shared_ptr<Window> windowOrFail(HostCall& call, int handle, int& error) {
  auto window = call.rank.window(handle);
  error = window ? int(abi::kSuccess)
                 : call.fail(abi::kCommWorld, abi::kErrWin,
                             "invalid window " + std::to_string(handle));
  return window;
}

void announceWindowChange(HostCall& call, Window& window) {
  WindowSync& sync = *window.sync;
  call.world().publishMark(call.rank.worldRank, *window.comm, sync.changes,
                           sync.changes.load() + 1);
}

// Where `count` instances of `type` at displacement `disp` of member
// `target` start in host memory, or null when they are not all inside the
// window (for a dynamic window: inside one attached region).
static uint8_t* targetLocation(Window& window, int target, int64_t disp, const TypeLayout& type,
                               int64_t count) {
  ByteSpan span = touchedSpan(type, count);
  if (window.flavor == abi::kWinFlavorDynamic) {
    // The displacement is an address in the target's memory (MPI_BOTTOM
    // is 0), as MPI_Get_address gives it.
    int64_t address = int64_t(uint32_t(disp));
    std::lock_guard<std::mutex> guard(window.sync->attachedMutex);
    for (const WindowSync::Region& region : window.sync->attached[target]) {
      int64_t offset = address - int64_t(region.guestAddress);
      if (span.empty() ? offset >= 0 && offset <= region.size
                       : offset + span.first >= 0 && offset + span.last <= region.size)
        return region.first + offset;
    }
    return nullptr;
  }
  int64_t offset = disp * window.dispUnits[target];
  if (!span.empty() && (offset + span.first < 0 || offset + span.last > window.sizes[target]))
    return nullptr;
  return window.bases[target] + offset;
}

int resolveRmaTarget(HostCall& call, uint32_t originAddr, int originCount, int originType,
                     int targetRank, int64_t targetDisp, int targetCount, int targetType, int win,
                     RmaTarget& out, bool originIgnored, bool acrossHosts, RmaEpoch epoch) {
  int error;
  out.window = windowOrFail(call, win, error);
  if (!out.window) return error;
  Window& window = *out.window;
  out.toProcNull = targetRank == abi::kProcNull;
  if (!out.toProcNull && (targetRank < 0 || targetRank >= window.comm->size()))
    return failOnWindow(call, window, abi::kErrRank,
                        "invalid target rank " + std::to_string(targetRank));
  out.originType = call.rank.type(originType);
  out.targetType = call.rank.type(targetType);
  if ((!originIgnored && !out.originType) || !out.targetType)
    return failOnWindow(call, window, abi::kErrType, "invalid datatype");
  if (originCount < 0 || targetCount < 0)
    return failOnWindow(call, window, abi::kErrCount, "negative count");
  if (out.toProcNull) return abi::kSuccess;
  if (int error = checkAccessEpoch(call, window, targetRank, epoch == RmaEpoch::PassiveOnly))
    return error;
  out.originCount = originIgnored ? 0 : originCount;
  out.targetCount = targetCount;
  if (!originIgnored) {
    bool ok;
    out.origin = call.typedBuffer(originAddr, *out.originType, originCount, ok);
    if (!ok) return failOnWindow(call, window, abi::kErrBuffer, "origin buffer outside linear memory");
    if (out.originType->size * originCount != out.targetType->size * targetCount)
      return failOnWindow(call, window, abi::kErrArg, "origin and target sizes differ");
  }
  if (window.spanningId && call.world().isRemote(window.comm->worldRanks[targetRank])) {
    if (!acrossHosts)
      return failOnWindow(call, window, abi::kErrUnsupportedOperation,
                          std::string(call.name) + " on a rank of another host is not supported yet");
    ByteSpan span = touchedSpan(*out.targetType, targetCount);
    // A dynamic window's displacement is an address in the target's
    // memory, whose attached regions only the target's host knows: it
    // checks them (applyRemoteRma). Here the range must lie in linear memory.
    bool dynamic = window.flavor == abi::kWinFlavorDynamic;
    int64_t offset = dynamic ? int64_t(uint32_t(targetDisp)) : targetDisp * window.dispUnits[targetRank];
    int64_t limit = dynamic ? int64_t(UINT32_MAX) + 1 : window.sizes[targetRank];
    if (!span.empty() && (offset + span.first < 0 || offset + span.last > limit))
      return failOnWindow(call, window, abi::kErrRmaRange,
                          "target range is outside the target's window");
    out.remote = true;
    out.targetRank = targetRank;
    out.targetOffset = offset;
    return abi::kSuccess;
  }
  // A member a live move brings here is addressed once it has arrived.
  if (window.flavor != abi::kWinFlavorDynamic && !awaitMemberArrival(call, window, targetRank))
    call.leaveAbortedJob();
  out.target = targetLocation(window, targetRank, targetDisp, *out.targetType, targetCount);
  if (!out.target)
    return failOnWindow(call, window, abi::kErrRmaRange,
                        "target range is outside the target's window");
  return abi::kSuccess;
}

bool accumulateOpFits(int op, const TypeLayout& type, int64_t count) {
  if (op < 1 || op > abi::kLastPredefinedOp) return false;
  return type.size * count == 0 || opAppliesTo(PredefinedOp(op), type.element);
}

int accumulateAt(HostCall& call, RmaTarget& t, int op, uint8_t* fetched) {
  if (!accumulateOpFits(op, *t.targetType, t.targetCount))
    return failOnWindow(call, *t.window, abi::kErrOp,
                        "op " + std::to_string(op) + " is not a predefined op for this datatype");
  int64_t bytes = t.targetType->size * t.targetCount;
  // The packed copies below then take no more than the window holds: a
  // target type whose entries overlap could ask for any amount.
  ByteSpan span = touchedSpan(*t.targetType, t.targetCount);
  if (bytes > span.last - span.first)
    return failOnWindow(call, *t.window, abi::kErrType,
                        "the target datatype of an accumulate overlaps itself");
  bool usesOrigin = PredefinedOp(op) != PredefinedOp::NoOp;
  std::vector<uint8_t> operand(usesOrigin ? static_cast<size_t>(bytes) : 0);
  if (usesOrigin) packTyped(t.origin, *t.originType, t.originCount, operand.data());
  std::vector<uint8_t> current(static_cast<size_t>(bytes));
  int64_t elements = t.targetCount * t.targetType->elementsPerInstance();
  call.world().locked([&] {
    packTyped(t.target, *t.targetType, t.targetCount, current.data());
    if (fetched) std::copy(current.begin(), current.end(), fetched);
    if (!usesOrigin) return;
    applyPredefinedOp(PredefinedOp(op), t.targetType->element, operand.data(), current.data(),
                      elements);
    unpackTyped(current.data(), t.target, *t.targetType, t.targetCount);
  });
  return abi::kSuccess;
}

}  // namespace synergy::mpi

using namespace synergy::mpi;
using u32 = uint32_t;

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
  return allocateWindow(call, int32_t(size), int(dispUnit), int(comm), baseptrOut, winOut,
                        abi::kWinFlavorAllocate);
}

// The C binding hands back a pointer to each value, so the values live in
// guest memory: one block per window and rank, written when first asked for.
u32 Z_envZ_MPI_Win_get_attr(void* instance, u32 win, u32 keyval, u32 valueOut, u32 flagOut) {
  HostCall call(instance, "MPI_Win_get_attr");
  auto window = call.rank.window(int(win));
  if (!window) return call.fail(abi::kCommWorld, abi::kErrWin, "invalid window");
  static constexpr int kAttributes[] = {abi::kWinAttrBase, abi::kWinAttrSize,
                                        abi::kWinAttrDispUnit, abi::kWinAttrCreateFlavor,
                                        abi::kWinAttrModel};
  const int* slot = std::find(std::begin(kAttributes), std::end(kAttributes), int(keyval));
  if (slot == std::end(kAttributes))
    return getWindowAttribute(call, window->commHandle, int(win), int(keyval), valueOut, flagOut);
  if (!window->attributesGuest) {
    using AllocFn = uint32_t (*)(void*, uint32_t);
    auto alloc =
        reinterpret_cast<AllocFn>(call.granule.module().exportedFunction("synergy_mpi_alloc"));
    uint32_t block = alloc ? alloc(call.granule.instance(), 4 * std::size(kAttributes)) : 0;
    if (!block) return failOnWindow(call, *window, abi::kErrNoMem, "no guest memory for window attributes");
    int me = window->me;
    // A dynamic window has no base: MPI_BOTTOM.
    uint32_t base =
        window->bases[me] ? uint32_t(window->bases[me] - call.granule.memoryBase()) : 0;
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
    return failOnWindow(call, *window, abi::kErrArg, "output outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_fence(void* instance, u32 assertion, u32 win) {
  HostCall call(instance, "MPI_Win_fence");
  auto window = call.rank.window(int(win));
  if (!window) return call.fail(abi::kCommWorld, abi::kErrWin, "invalid window");
  if (int error = checkNoEpochOpen(call, *window)) return error;
  int result = fencesAcrossHosts(call.world(), *window) ? fenceAcrossHosts(call, *window)
                                  : windowCollective(call, *window, CollectiveKind::WinFence);
  if (result == abi::kSuccess) window->fenceEpoch = !(int(assertion) & abi::kModeNosucceed);
  return result;
}

u32 Z_envZ_MPI_Win_free(void* instance, u32 winAddr) {
  HostCall call(instance, "MPI_Win_free");
  int32_t win;
  std::shared_ptr<Window> window;
  if (!call.load(winAddr, win) || !(window = call.rank.window(win)))
    return call.fail(abi::kCommWorld, abi::kErrWin, "invalid window");
  if (int error = checkNoEpochOpen(call, *window)) return error;
  if (int error = deleteWindowAttributes(call, win)) return error;
  int result = fencesAcrossHosts(call.world(), *window)
                   ? freeAcrossHosts(call, *window)
                   : windowCollective(call, *window, CollectiveKind::WinFree);
  if (result) return result;
  unregisterWindowHere(call.world(), *window);
  if (window->fenceCommHandle) call.rank.freeComm(window->fenceCommHandle);
  releaseSharedPages(call, window->sharedGuest, window->sharedBytes);
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
  RmaTarget t;
  if (int e = resolveRmaTarget(call, origin, int(originCount), int(originType), int(targetRank),
                               int32_t(targetDisp), int(targetCount), int(targetType), int(win), t,
                               /*originIgnored=*/false, /*acrossHosts=*/true))
    return e;
  if (t.toProcNull) return abi::kSuccess;
  if (t.remote) return rmaAcrossHosts(call, t, RmaKind::Put, 0);
  copyTyped(t.origin, *t.originType, t.originCount, t.target, *t.targetType, t.targetCount,
            t.originType->size * t.originCount);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Get(void* instance, u32 origin, u32 originCount, u32 originType, u32 targetRank,
                   u32 targetDisp, u32 targetCount, u32 targetType, u32 win) {
  HostCall call(instance, "MPI_Get");
  RmaTarget t;
  if (int e = resolveRmaTarget(call, origin, int(originCount), int(originType), int(targetRank),
                               int32_t(targetDisp), int(targetCount), int(targetType), int(win), t,
                               /*originIgnored=*/false, /*acrossHosts=*/true))
    return e;
  if (t.toProcNull) return abi::kSuccess;
  if (t.remote)
    return rmaAcrossHosts(call, t, RmaKind::Get, 0, t.origin, t.originType, t.originCount);
  copyTyped(t.target, *t.targetType, t.targetCount, t.origin, *t.originType, t.originCount,
            t.originType->size * t.originCount);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Accumulate(void* instance, u32 origin, u32 originCount, u32 originType,
                          u32 targetRank, u32 targetDisp, u32 targetCount, u32 targetType, u32 op,
                          u32 win) {
  HostCall call(instance, "MPI_Accumulate");
  RmaTarget t;
  if (int e = resolveRmaTarget(call, origin, int(originCount), int(originType), int(targetRank),
                               int32_t(targetDisp), int(targetCount), int(targetType), int(win), t,
                               /*originIgnored=*/false, /*acrossHosts=*/true))
    return e;
  if (t.toProcNull) return abi::kSuccess;
  if (t.remote) return rmaAcrossHosts(call, t, RmaKind::Accumulate, int(op));
  return accumulateAt(call, t, int(op), nullptr);
}

}  // extern "C"

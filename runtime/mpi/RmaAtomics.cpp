//===- RmaAtomics.cpp - atomic and request-based one-sided operations -----===//
//
// MPI_Fetch_and_op, MPI_Compare_and_swap and MPI_Get_accumulate read the
// target's old contents and update them in one step under the World lock,
// the lock every accumulate holds, so they are atomic per element against
// each other and against MPI_Accumulate, as MPI requires of accumulate
// operations on one location. Every predefined op works, MPI_REPLACE and
// MPI_NO_OP (which only reads; its origin is ignored) included.
//
// MPI_Rput, MPI_Rget, MPI_Raccumulate and MPI_Rget_accumulate complete when
// they are called, like every operation of a window on one host, and hand
// back the rank's permanent completed-request handle (RankState).
//
// On a target of another host, every one of them goes to that host
// (RemoteWindows.cpp), which applies accumulates and atomics under its own
// World lock, so they stay atomic against the accumulates of its ranks; a
// request-based call there waits for its operation to be done, so that its
// request is complete when the call returns, as on one host.
//
//===----------------------------------------------------------------------===//
#include <cstring>

#include "mpi/ReduceOp.h"
#include "mpi/Window.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

bool isNoOp(u32 op) { return int(op) == int(PredefinedOp::NoOp); }

// A request-based operation on a target of another host completes before
// the call returns, like every other one: its request handle is the
// permanent completed one. The target's host applies it whatever the target
// rank does, so waiting here cannot deadlock.
int completeAcrossHosts(HostCall& call, RmaTarget& t) {
  if (!awaitRmaAcrossHosts(call, *t.window, t.targetRank)) call.leaveAbortedJob();
  return abi::kSuccess;
}

// The result side of a fetching operation: `count` instances of `type` at
// `addr`, which must hold exactly the bytes the target side covers.
int resolveResult(HostCall& call, RmaTarget& t, u32 addr, int count, int type, Layout& layout,
                  uint8_t*& buffer) {
  layout = call.rank.type(type);
  if (!layout) return failOnWindow(call, *t.window, abi::kErrType, "invalid result datatype");
  if (count < 0) return failOnWindow(call, *t.window, abi::kErrCount, "negative result count");
  if (layout->size * count != t.targetType->size * t.targetCount)
    return failOnWindow(call, *t.window, abi::kErrArg, "result and target sizes differ");
  bool ok;
  buffer = call.typedBuffer(addr, *layout, count, ok);
  if (!ok) return failOnWindow(call, *t.window, abi::kErrBuffer, "result buffer outside linear memory");
  return abi::kSuccess;
}

int getAccumulate(HostCall& call, u32 origin, u32 originCount, u32 originType, u32 result,
                  u32 resultCount, u32 resultType, u32 targetRank, u32 targetDisp,
                  u32 targetCount, u32 targetType, u32 op, u32 win, bool completeAtOnce) {
  RmaTarget t;
  if (int e = resolveRmaTarget(call, origin, int(originCount), int(originType), int(targetRank),
                               int32_t(targetDisp), int(targetCount), int(targetType), int(win), t,
                               isNoOp(op), /*acrossHosts=*/true,
                               completeAtOnce ? RmaEpoch::PassiveOnly : RmaEpoch::Any))
    return e;
  if (t.toProcNull) return abi::kSuccess;
  Layout layout;
  uint8_t* buffer;
  if (int e = resolveResult(call, t, result, int(resultCount), int(resultType), layout, buffer))
    return e;
  if (t.remote) {
    if (int e = rmaAcrossHosts(call, t, RmaKind::GetAccumulate, int(op), buffer, layout,
                               int64_t(int(resultCount))))
      return e;
    return completeAtOnce ? completeAcrossHosts(call, t) : int(abi::kSuccess);
  }
  std::vector<uint8_t> fetched(size_t(t.targetType->size * t.targetCount));
  if (int e = accumulateAt(call, t, int(op), fetched.data())) return e;
  unpackTyped(fetched.data(), buffer, *layout, int64_t(int(resultCount)));
  return abi::kSuccess;
}

int storeCompletedRequest(HostCall& call, u32 requestOut) {
  if (!call.store<int32_t>(requestOut, call.rank.completedSend()))
    return call.fail(abi::kCommWorld, abi::kErrArg, "request pointer outside linear memory");
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Get_accumulate(void* instance, u32 origin, u32 originCount, u32 originType,
                              u32 result, u32 resultCount, u32 resultType, u32 targetRank,
                              u32 targetDisp, u32 targetCount, u32 targetType, u32 op, u32 win) {
  HostCall call(instance, "MPI_Get_accumulate");
  return getAccumulate(call, origin, originCount, originType, result, resultCount, resultType,
                       targetRank, targetDisp, targetCount, targetType, op, win,
                       /*completeAtOnce=*/false);
}

u32 Z_envZ_MPI_Fetch_and_op(void* instance, u32 origin, u32 result, u32 type, u32 targetRank,
                            u32 targetDisp, u32 op, u32 win) {
  HostCall call(instance, "MPI_Fetch_and_op");
  return getAccumulate(call, origin, 1, type, result, 1, type, targetRank, targetDisp, 1, type,
                       op, win, /*completeAtOnce=*/false);
}

u32 Z_envZ_MPI_Compare_and_swap(void* instance, u32 origin, u32 compare, u32 result, u32 type,
                                u32 targetRank, u32 targetDisp, u32 win) {
  HostCall call(instance, "MPI_Compare_and_swap");
  RmaTarget t;
  if (int e = resolveRmaTarget(call, origin, 1, int(type), int(targetRank), int32_t(targetDisp),
                               1, int(type), int(win), t, /*originIgnored=*/false,
                               /*acrossHosts=*/true))
    return e;
  if (t.toProcNull) return abi::kSuccess;
  // MPI allows only C integers, Fortran integers and logicals, and bytes:
  // one element, compared bit for bit.
  switch (t.targetType->element) {
    case ElementKind::Float: case ElementKind::Double: case ElementKind::LongDouble:
    case ElementKind::ComplexFloat: case ElementKind::ComplexDouble:
    case ElementKind::ComplexLongDouble: case ElementKind::FloatInt: case ElementKind::DoubleInt:
    case ElementKind::Int32Int: case ElementKind::ShortInt: case ElementKind::LongDoubleInt:
    case ElementKind::FloatFloat: case ElementKind::DoubleDouble:
    case ElementKind::Mixed: case ElementKind::None:
      return failOnWindow(call, *t.window, abi::kErrType,
                          "MPI_Compare_and_swap needs an integer, logical or byte datatype");
    default: break;
  }
  if (!t.targetType->isContiguous() || t.targetType->elementsPerInstance() != 1)
    return failOnWindow(call, *t.window, abi::kErrType,
                        "MPI_Compare_and_swap needs a single-element datatype");
  size_t bytes = size_t(t.targetType->size);
  uint8_t* compared = call.bytes(compare, bytes);
  uint8_t* fetched = call.bytes(result, bytes);
  if (!compared || !fetched)
    return failOnWindow(call, *t.window, abi::kErrBuffer,
                        "compare or result buffer outside linear memory");
  if (t.remote)
    return rmaAcrossHosts(call, t, RmaKind::CompareAndSwap, 0, fetched, t.targetType, 1, compared);
  uint8_t old[16];
  call.world().locked([&] {
    std::memcpy(old, t.target, bytes);
    if (std::memcmp(old, compared, bytes) == 0) std::memmove(t.target, t.origin, bytes);
  });
  std::memcpy(fetched, old, bytes);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Rput(void* instance, u32 origin, u32 originCount, u32 originType, u32 targetRank,
                    u32 targetDisp, u32 targetCount, u32 targetType, u32 win, u32 requestOut) {
  HostCall call(instance, "MPI_Rput");
  RmaTarget t;
  if (int e = resolveRmaTarget(call, origin, int(originCount), int(originType), int(targetRank),
                               int32_t(targetDisp), int(targetCount), int(targetType), int(win), t,
                               /*originIgnored=*/false, /*acrossHosts=*/true,
                               RmaEpoch::PassiveOnly))
    return e;
  if (t.toProcNull) return storeCompletedRequest(call, requestOut);
  if (t.remote) {
    if (int e = rmaAcrossHosts(call, t, RmaKind::Put, 0)) return e;
    if (int e = completeAcrossHosts(call, t)) return e;
    return storeCompletedRequest(call, requestOut);
  }
  copyTyped(t.origin, *t.originType, t.originCount, t.target, *t.targetType, t.targetCount,
            t.originType->size * t.originCount);
  return storeCompletedRequest(call, requestOut);
}

u32 Z_envZ_MPI_Rget(void* instance, u32 origin, u32 originCount, u32 originType, u32 targetRank,
                    u32 targetDisp, u32 targetCount, u32 targetType, u32 win, u32 requestOut) {
  HostCall call(instance, "MPI_Rget");
  RmaTarget t;
  if (int e = resolveRmaTarget(call, origin, int(originCount), int(originType), int(targetRank),
                               int32_t(targetDisp), int(targetCount), int(targetType), int(win), t,
                               /*originIgnored=*/false, /*acrossHosts=*/true,
                               RmaEpoch::PassiveOnly))
    return e;
  if (t.toProcNull) return storeCompletedRequest(call, requestOut);
  if (t.remote) {
    if (int e = rmaAcrossHosts(call, t, RmaKind::Get, 0, t.origin, t.originType, t.originCount))
      return e;
    if (int e = completeAcrossHosts(call, t)) return e;
    return storeCompletedRequest(call, requestOut);
  }
  copyTyped(t.target, *t.targetType, t.targetCount, t.origin, *t.originType, t.originCount,
            t.originType->size * t.originCount);
  return storeCompletedRequest(call, requestOut);
}

u32 Z_envZ_MPI_Raccumulate(void* instance, u32 origin, u32 originCount, u32 originType,
                           u32 targetRank, u32 targetDisp, u32 targetCount, u32 targetType,
                           u32 op, u32 win, u32 requestOut) {
  HostCall call(instance, "MPI_Raccumulate");
  RmaTarget t;
  if (int e = resolveRmaTarget(call, origin, int(originCount), int(originType), int(targetRank),
                               int32_t(targetDisp), int(targetCount), int(targetType), int(win), t,
                               /*originIgnored=*/false, /*acrossHosts=*/true,
                               RmaEpoch::PassiveOnly))
    return e;
  if (t.toProcNull) return storeCompletedRequest(call, requestOut);
  if (t.remote) {
    if (int e = rmaAcrossHosts(call, t, RmaKind::Accumulate, int(op))) return e;
    if (int e = completeAcrossHosts(call, t)) return e;
  } else if (int e = accumulateAt(call, t, int(op), nullptr)) {
    return e;
  }
  return storeCompletedRequest(call, requestOut);
}

u32 Z_envZ_MPI_Rget_accumulate(void* instance, u32 origin, u32 originCount, u32 originType,
                               u32 result, u32 resultCount, u32 resultType, u32 targetRank,
                               u32 targetDisp, u32 targetCount, u32 targetType, u32 op, u32 win,
                               u32 requestOut) {
  HostCall call(instance, "MPI_Rget_accumulate");
  if (int e = getAccumulate(call, origin, originCount, originType, result, resultCount,
                            resultType, targetRank, targetDisp, targetCount, targetType, op, win,
                            /*completeAtOnce=*/true))
    return e;
  return storeCompletedRequest(call, requestOut);
}

}  // extern "C"

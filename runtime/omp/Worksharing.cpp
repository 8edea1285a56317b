//===- Worksharing.cpp - OpenMP loop schedules ------------------------------===//
//
// The __kmpc_for_static_init_* and __kmpc_dispatch_*_* host functions that
// clang emits for `#pragma omp for`.
//
// Static schedules are computed by each thread alone. Without a chunk, the
// iterations are split as libgomp splits them (the first trip%n threads get
// one more), so programs that print which thread ran what agree with gcc.
// Dynamic, guided, runtime and ordered loops go through a LoopShare that the
// team's threads claim iterations from. Loops are identified by how many
// dispatched loops a thread has entered, so a thread that races ahead past a
// `nowait` loop never takes iterations from the wrong one.
//
// Bounds are inclusive, as in the kmp ABI; the increment is signed even for
// the unsigned variants.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <type_traits>

#include "omp/Team.h"
#include "omp/ThreadHostSync.h"

using synergy::granule::Granule;
using namespace synergy::omp;

namespace {

// kmp schedule kinds (kmp.h's sched_type), without the monotonic and
// nonmonotonic modifier bits.
enum : int {
  kStaticChunked = 33,
  kStatic = 34,
  kDynamicChunked = 35,
  kGuidedChunked = 36,
  kRuntime = 37,
  kAuto = 38,
  kStaticGreedy = 40,
  kStaticBalanced = 41,
  kOrderedOffset = 32,  // ordered kinds are 65..70
  kModifierMask = 3 << 29,
};

template <typename T>
uint64_t tripCount(T lower, T upper, int64_t increment) {
  using U = std::make_unsigned_t<T>;
  if (increment > 0) {
    if (upper < lower) return 0;
    return uint64_t(U(upper - lower)) / uint64_t(increment) + 1;
  }
  if (increment < 0) {
    if (lower < upper) return 0;
    return uint64_t(U(lower - upper)) / uint64_t(-increment) + 1;
  }
  return 0;
}

template <typename T>
T iterationValue(T lower, int64_t increment, uint64_t index) {
  using U = std::make_unsigned_t<T>;
  return T(U(lower) + U(uint64_t(increment) * index));
}

// Resolves runtime/auto and the ordered and greedy/balanced aliases.
int baseSchedule(int kind, const Icvs& icvs, uint64_t& chunk, bool& ordered) {
  kind &= ~kModifierMask;
  ordered = kind > kOrderedOffset + kStaticChunked - 1 && kind <= kOrderedOffset + kAuto;
  if (ordered) kind -= kOrderedOffset;
  if (kind == kRuntime) {
    switch (icvs.runScheduleKind & 0x7fffffff) {
      case 1: kind = icvs.runScheduleChunk > 0 ? kStaticChunked : kStatic; break;
      case 3: kind = kGuidedChunked; break;
      case 4: kind = kStatic; break;
      default: kind = kDynamicChunked; break;
    }
    chunk = uint64_t(std::max(icvs.runScheduleChunk, 1));
  }
  if (kind == kAuto || kind == kStaticGreedy || kind == kStaticBalanced) kind = kStatic;
  if (kind != kStatic && kind != kStaticChunked && kind != kDynamicChunked &&
      kind != kGuidedChunked)
    kind = kStatic;
  if (chunk == 0) chunk = 1;
  return kind;
}

// Thread `threadNum`'s block of a static schedule without chunk: [begin, end).
void staticBlock(uint64_t trip, int threads, int threadNum, uint64_t& begin, uint64_t& end) {
  uint64_t quotient = trip / uint64_t(threads);
  uint64_t remainder = trip % uint64_t(threads);
  if (uint64_t(threadNum) < remainder) {
    ++quotient;
    remainder = 0;
  }
  begin = quotient * uint64_t(threadNum) + remainder;
  end = begin + quotient;
}

template <typename T>
void forStaticInit(void* host, int32_t schedule, uint32_t lastAddress, uint32_t lowerAddress,
                   uint32_t upperAddress, uint32_t strideAddress, int64_t increment,
                   int64_t chunk) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  T* lower = granule.guestPtr<T>(lowerAddress);
  T* upper = granule.guestPtr<T>(upperAddress);
  auto* stride = granule.guestPtr<std::make_signed_t<T>>(strideAddress);
  int32_t* last = lastAddress ? granule.guestPtr<int32_t>(lastAddress) : nullptr;
  uint64_t trip = tripCount<T>(*lower, *upper, increment);
  int threads = me.teamSize();
  int threadNum = me.at.threadNum;
  T base = *lower;
  if (last) *last = 0;
  if (trip == 0) return;
  if ((schedule & ~kModifierMask) == kStaticChunked && chunk > 0) {
    uint64_t size = uint64_t(chunk);
    *lower = iterationValue<T>(base, increment, size * uint64_t(threadNum));
    *upper = iterationValue<T>(*lower, increment, size - 1);
    *stride = std::make_signed_t<T>(increment * int64_t(size) * threads);
    if (last) *last = int32_t(uint64_t(threadNum) == ((trip - 1) / size) % uint64_t(threads));
    return;
  }
  uint64_t begin = 0, end = 0;
  staticBlock(trip, threads, threadNum, begin, end);
  *stride = std::make_signed_t<T>(increment * int64_t(trip));
  if (begin == end) {
    // No iterations: an empty range just past the loop.
    *lower = iterationValue<T>(base, increment, trip);
    *upper = iterationValue<T>(base, increment, trip - 1);
    if (increment > 0 ? !(*lower > *upper) : !(*lower < *upper)) *upper = T(*lower - T(increment));
    return;
  }
  *lower = iterationValue<T>(base, increment, begin);
  *upper = iterationValue<T>(base, increment, end - 1);
  if (last) *last = int32_t(end == trip);
}

template <typename T>
void dispatchInit(void* host, int32_t schedule, T lower, T upper, int64_t increment,
                  int64_t chunk) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  LoopShare shape;
  shape.tripCount = tripCount<T>(lower, upper, increment);
  uint64_t chunkSize = chunk > 0 ? uint64_t(chunk) : 0;
  shape.kind = baseSchedule(schedule, me.icvs, chunkSize, shape.ordered);
  shape.chunk = chunkSize;
  shape.lowerBits = uint64_t(std::make_unsigned_t<T>(lower));
  shape.increment = increment;
  uint64_t index = me.at.loopsSeen++;
  if (me.at.team) {
    me.at.loop = &me.at.team->loop(index, shape);
  } else {
    me.soloLoop = std::make_unique<LoopShare>();
    me.soloLoop->copyShape(shape);
    me.at.loop = me.soloLoop.get();
  }
  me.at.loopIndex = index;
  me.at.staticChunksTaken = 0;
  me.at.claimedNext = me.at.claimedEnd = 0;
}

}  // namespace

bool synergy::omp::claimSharedChunk(LoopShare& loop, int threads, uint64_t& begin,
                                    uint64_t& end) {
  uint64_t trip = loop.tripCount;
  if (loop.kind == kDynamicChunked) {
    begin = loop.nextIteration.fetch_add(loop.chunk, std::memory_order_relaxed);
    if (begin >= trip) return false;
    end = std::min(begin + loop.chunk, trip);
    return true;
  }
  uint64_t current = loop.nextIteration.load(std::memory_order_relaxed);
  for (;;) {
    if (current >= trip) return false;
    uint64_t size = (trip - current + threads - 1) / uint64_t(threads);
    size = std::max(size, loop.chunk);
    uint64_t next = std::min(current + size, trip);
    if (loop.nextIteration.compare_exchange_weak(current, next, std::memory_order_relaxed)) {
      begin = current;
      end = next;
      return true;
    }
  }
}

bool synergy::omp::claimSharedChunks(LoopShare& loop, int threads, uint64_t& begin,
                                     uint64_t& end) {
  if (loop.kind != kDynamicChunked) return claimSharedChunk(loop, threads, begin, end);
  uint64_t trip = loop.tripCount;
  uint64_t current = loop.nextIteration.load(std::memory_order_relaxed);
  for (;;) {
    if (current >= trip) return false;
    uint64_t chunks = std::max<uint64_t>((trip - current) / (2 * uint64_t(threads)) / loop.chunk, 1);
    uint64_t next = trip - current > chunks * loop.chunk ? current + chunks * loop.chunk : trip;
    if (loop.nextIteration.compare_exchange_weak(current, next, std::memory_order_relaxed)) {
      begin = current;
      end = next;
      return true;
    }
  }
}

namespace {

// Claims the thread's next chunk [begin, end) of iteration indices. In a
// team whose threads span hosts a thread host asks the main host for the
// chunks of dynamic and guided loops.
bool claimChunk(OmpThread& me, LoopShare& loop, uint64_t& begin, uint64_t& end) {
  int threads = me.teamSize();
  uint64_t trip = loop.tripCount;
  switch (loop.kind) {
    case kStaticChunked: {
      uint64_t chunkNumber = uint64_t(me.at.threadNum) + me.at.staticChunksTaken * threads;
      ++me.at.staticChunksTaken;
      begin = chunkNumber * loop.chunk;
      if (begin >= trip) return false;
      end = std::min(begin + loop.chunk, trip);
      return true;
    }
    case kDynamicChunked:
    case kGuidedChunked:
      if (ThreadHostSync* remote = me.at.team ? me.at.team->threadHost : nullptr)
        return remote->claimChunk(me, loop, begin, end);
      return claimSharedChunk(loop, threads, begin, end);
    default:
      if (me.at.staticChunksTaken++ > 0) return false;
      staticBlock(trip, threads, me.at.threadNum, begin, end);
      return begin < end;
  }
}

template <typename T>
int32_t dispatchNext(void* host, uint32_t lastAddress, uint32_t lowerAddress,
                     uint32_t upperAddress, uint32_t strideAddress) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  LoopShare* loop = me.at.loop;
  if (!loop) return 0;
  uint64_t begin = 0, end = 0;
  if (!claimChunk(me, *loop, begin, end)) {
    me.at.loop = nullptr;
    if (me.at.team) me.at.team->finishLoop(me.at.loopIndex);
    return 0;
  }
  T lower = T(std::make_unsigned_t<T>(loop->lowerBits));
  *granule.guestPtr<T>(lowerAddress) = iterationValue<T>(lower, loop->increment, begin);
  *granule.guestPtr<T>(upperAddress) = iterationValue<T>(lower, loop->increment, end - 1);
  *granule.guestPtr<std::make_signed_t<T>>(strideAddress) =
      std::make_signed_t<T>(loop->increment);
  if (lastAddress) *granule.guestPtr<int32_t>(lastAddress) = int32_t(end == loop->tripCount);
  me.at.orderedIteration = uint32_t(begin);
  me.at.orderedDone = false;
  return 1;
}

// Ends one iteration of an ordered loop. An iteration that skipped its
// ordered block still takes its turn, or later ones would wait forever.
void dispatchFini(void* host) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  LoopShare* loop = me.at.loop;
  if (!loop || !loop->ordered) return;
  if (!me.at.orderedDone) {
    if (ThreadHostSync* remote = me.at.team ? me.at.team->threadHost : nullptr) {
      remote->orderedSkip(me, *loop, me.at.orderedIteration);
    } else {
      for (uint32_t next; (next = loop->orderedNext.load(std::memory_order_acquire)) !=
                          me.at.orderedIteration;)
        loop->orderedNext.waitWhileEquals(next, me.spins());
      loop->orderedNext.store(me.at.orderedIteration + 1, std::memory_order_release);
      loop->orderedNext.wakeAll();
    }
  }
  ++me.at.orderedIteration;
  me.at.orderedDone = false;
}

}  // namespace

extern "C" {

void Z_envZ___kmpc_for_static_init_4(void* host, uint32_t, uint32_t, uint32_t schedule,
                                     uint32_t last, uint32_t lower, uint32_t upper,
                                     uint32_t stride, uint32_t increment, uint32_t chunk) {
  forStaticInit<int32_t>(host, int32_t(schedule), last, lower, upper, stride,
                         int32_t(increment), int32_t(chunk));
}

void Z_envZ___kmpc_for_static_init_4u(void* host, uint32_t, uint32_t, uint32_t schedule,
                                      uint32_t last, uint32_t lower, uint32_t upper,
                                      uint32_t stride, uint32_t increment, uint32_t chunk) {
  forStaticInit<uint32_t>(host, int32_t(schedule), last, lower, upper, stride,
                          int32_t(increment), int32_t(chunk));
}

void Z_envZ___kmpc_for_static_init_8(void* host, uint32_t, uint32_t, uint32_t schedule,
                                     uint32_t last, uint32_t lower, uint32_t upper,
                                     uint32_t stride, uint64_t increment, uint64_t chunk) {
  forStaticInit<int64_t>(host, int32_t(schedule), last, lower, upper, stride,
                         int64_t(increment), int64_t(chunk));
}

void Z_envZ___kmpc_for_static_init_8u(void* host, uint32_t, uint32_t, uint32_t schedule,
                                      uint32_t last, uint32_t lower, uint32_t upper,
                                      uint32_t stride, uint64_t increment, uint64_t chunk) {
  forStaticInit<uint64_t>(host, int32_t(schedule), last, lower, upper, stride,
                          int64_t(increment), int64_t(chunk));
}

void Z_envZ___kmpc_for_static_fini(void*, uint32_t, uint32_t) {}

void Z_envZ___kmpc_dispatch_init_4(void* host, uint32_t, uint32_t, uint32_t schedule,
                                   uint32_t lower, uint32_t upper, uint32_t increment,
                                   uint32_t chunk) {
  dispatchInit<int32_t>(host, int32_t(schedule), int32_t(lower), int32_t(upper),
                        int32_t(increment), int32_t(chunk));
}

void Z_envZ___kmpc_dispatch_init_4u(void* host, uint32_t, uint32_t, uint32_t schedule,
                                    uint32_t lower, uint32_t upper, uint32_t increment,
                                    uint32_t chunk) {
  dispatchInit<uint32_t>(host, int32_t(schedule), lower, upper, int32_t(increment),
                         int32_t(chunk));
}

void Z_envZ___kmpc_dispatch_init_8(void* host, uint32_t, uint32_t, uint32_t schedule,
                                   uint64_t lower, uint64_t upper, uint64_t increment,
                                   uint64_t chunk) {
  dispatchInit<int64_t>(host, int32_t(schedule), int64_t(lower), int64_t(upper),
                        int64_t(increment), int64_t(chunk));
}

void Z_envZ___kmpc_dispatch_init_8u(void* host, uint32_t, uint32_t, uint32_t schedule,
                                    uint64_t lower, uint64_t upper, uint64_t increment,
                                    uint64_t chunk) {
  dispatchInit<uint64_t>(host, int32_t(schedule), lower, upper, int64_t(increment),
                         int64_t(chunk));
}

uint32_t Z_envZ___kmpc_dispatch_next_4(void* host, uint32_t, uint32_t, uint32_t last,
                                       uint32_t lower, uint32_t upper, uint32_t stride) {
  return uint32_t(dispatchNext<int32_t>(host, last, lower, upper, stride));
}

uint32_t Z_envZ___kmpc_dispatch_next_4u(void* host, uint32_t, uint32_t, uint32_t last,
                                        uint32_t lower, uint32_t upper, uint32_t stride) {
  return uint32_t(dispatchNext<uint32_t>(host, last, lower, upper, stride));
}

uint32_t Z_envZ___kmpc_dispatch_next_8(void* host, uint32_t, uint32_t, uint32_t last,
                                       uint32_t lower, uint32_t upper, uint32_t stride) {
  return uint32_t(dispatchNext<int64_t>(host, last, lower, upper, stride));
}

uint32_t Z_envZ___kmpc_dispatch_next_8u(void* host, uint32_t, uint32_t, uint32_t last,
                                        uint32_t lower, uint32_t upper, uint32_t stride) {
  return uint32_t(dispatchNext<uint64_t>(host, last, lower, upper, stride));
}

void Z_envZ___kmpc_dispatch_fini_4(void* host, uint32_t, uint32_t) { dispatchFini(host); }
void Z_envZ___kmpc_dispatch_fini_4u(void* host, uint32_t, uint32_t) { dispatchFini(host); }
void Z_envZ___kmpc_dispatch_fini_8(void* host, uint32_t, uint32_t) { dispatchFini(host); }
void Z_envZ___kmpc_dispatch_fini_8u(void* host, uint32_t, uint32_t) { dispatchFini(host); }
void Z_envZ___kmpc_dispatch_deinit(void*, uint32_t, uint32_t) {}

// `#pragma omp ordered` inside a dispatched loop: wait for this iteration's
// turn; the turn passes on at end_ordered.
void Z_envZ___kmpc_ordered(void* host, uint32_t, uint32_t) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  LoopShare* loop = me.at.loop;
  if (!loop) return;
  if (ThreadHostSync* remote = me.at.team ? me.at.team->threadHost : nullptr) {
    remote->orderedEnter(me, *loop, me.at.orderedIteration);
    return;
  }
  for (uint32_t next; (next = loop->orderedNext.load(std::memory_order_acquire)) !=
                      me.at.orderedIteration;)
    loop->orderedNext.waitWhileEquals(next, me.spins());
  acquireMemory(granule);
}

void Z_envZ___kmpc_end_ordered(void* host, uint32_t, uint32_t) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  LoopShare* loop = me.at.loop;
  if (!loop) return;
  me.at.orderedDone = true;
  if (ThreadHostSync* remote = me.at.team ? me.at.team->threadHost : nullptr) {
    remote->orderedLeave(me, *loop, me.at.orderedIteration);
    return;
  }
  releaseMemory(granule);
  loop->orderedNext.store(me.at.orderedIteration + 1, std::memory_order_release);
  loop->orderedNext.wakeAll();
}

}  // extern "C"

//===- AtomicHostFunctions.cpp - host side of lowered wasm atomics ---------===//
//
// wasm2c 1.0.32 refuses atomic instructions, so the lower-atomics pass
// (passes/LowerAtomics.cpp) turns each one into a call to an import from
// module "synergy". These are those imports, under wasm2c's names for them
// (`Z_synergyZ_<name>`). Granules that share a memory share its host mapping,
// so a sequentially consistent host atomic on the host address is exactly the
// guest's atomic. A granule whose MemorySync performs atomics elsewhere (a
// thread on a thread host) hands each access to its memory's owner instead
// (granule/AtomicAccess.h).
//
// Every address has the memarg offset added already (0xffffffff when that
// overflowed). As in wasm, an access traps when it is out of bounds, checked
// first, or not aligned to its width.
//
// memory.atomic.wait/notify park threads in a table of buckets, like a futex:
// a waiter checks the value and enqueues under its bucket's lock, and notify
// takes the same lock, so no wake-up is lost. A cell is named by its guest
// address in the memory the granules share: the memory itself, or in --dsm
// mode the main copy behind every replica (whose host addresses differ).
// There the waiter reads the value as an atomic load does, and notify first
// releases, as a store would.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>

#include "granule/Granule.h"

using synergy::granule::AtomicAccess;
using synergy::granule::AtomicOp;
using synergy::granule::Granule;

// wasm2c's import-instance type for module "synergy"; really the Granule.
struct Z_synergy_instance_t;

namespace {

template <typename T>
T* atomicCell(Z_synergy_instance_t* host, uint32_t address) {
  Granule& granule = Granule::fromHost(host);
  uint8_t* bytes = granule.guestBytes(address, sizeof(T));
  if (address % sizeof(T) != 0) granule.trap("unaligned atomic");
  return reinterpret_cast<T*>(bytes);
}

// Every atomic access of width sizeof(T): trapped here when out of bounds or
// unaligned, then done by the memory's owner when that is another process,
// else here.
template <typename T>
T perform(Z_synergy_instance_t* host, AtomicOp op, uint32_t address, T operand,
          T replacement = 0) {
  T* cell = atomicCell<T>(host, address);
  AtomicAccess access{op, sizeof(T), address, operand, replacement};
  uint8_t* bytes = reinterpret_cast<uint8_t*>(cell);
  // Threads sharing one mapping need nothing more; a --dsm replica or a
  // thread host leaves the access to its memory's synchronisation.
  if (auto* sync = Granule::fromHost(host).memorySync())
    return T(sync->performAtomic(access, bytes));
  return T(applyAtomicAccess(bytes, access));
}

struct CellName {
  const void* memory;
  uint32_t address;
  bool operator==(const CellName& other) const {
    return memory == other.memory && address == other.address;
  }
};

CellName cellName(Z_synergy_instance_t* host, uint32_t address) {
  Granule& granule = Granule::fromHost(host);
  if (auto* sync = granule.memorySync()) return {sync->domain(), address};
  return {granule.linearMemory(), address};
}

struct Waiter {
  explicit Waiter(CellName waitedCell) : cell(waitedCell) {}
  CellName cell;
  std::condition_variable wake;
  bool notified = false;
};

struct ParkingBucket {
  std::mutex mutex;
  std::list<Waiter*> waiters;
};

ParkingBucket& bucketFor(const CellName& cell) {
  static std::array<ParkingBucket, 64> buckets;
  uintptr_t hash = (reinterpret_cast<uintptr_t>(cell.memory) >> 4) ^ (cell.address >> 2);
  return buckets[hash % buckets.size()];
}

enum WaitResult : uint32_t { Woken = 0, NotEqual = 1, TimedOut = 2 };

template <typename T>
uint32_t wait(Z_synergy_instance_t* host, uint32_t address, T expected, int64_t timeoutNs) {
  CellName name = cellName(host, address);
  ParkingBucket& bucket = bucketFor(name);
  std::unique_lock<std::mutex> lock(bucket.mutex);
  if (perform<T>(host, AtomicOp::Load, address, 0) != expected) return NotEqual;
  Waiter waiter{name};
  auto position = bucket.waiters.insert(bucket.waiters.end(), &waiter);
  if (timeoutNs < 0) {
    waiter.wake.wait(lock, [&] { return waiter.notified; });
  } else {
    // Capped so that now + timeout cannot overflow the clock (2^62 ns is
    // over a century).
    auto timeout = std::chrono::nanoseconds(std::min<int64_t>(timeoutNs, int64_t(1) << 62));
    waiter.wake.wait_for(lock, timeout, [&] { return waiter.notified; });
  }
  if (!waiter.notified) {
    bucket.waiters.erase(position);
    return TimedOut;
  }
  lock.unlock();
  if (auto* sync = Granule::fromHost(host).memorySync()) sync->acquire();
  return Woken;
}

uint32_t notify(Z_synergy_instance_t* host, uint32_t address, uint32_t count) {
  atomicCell<uint32_t>(host, address);
  if (auto* sync = Granule::fromHost(host).memorySync()) sync->release();
  CellName name = cellName(host, address);
  ParkingBucket& bucket = bucketFor(name);
  std::lock_guard<std::mutex> lock(bucket.mutex);
  uint32_t woken = 0;
  for (auto it = bucket.waiters.begin(); it != bucket.waiters.end() && woken < count;) {
    Waiter* waiter = *it;
    if (!(waiter->cell == name)) {
      ++it;
      continue;
    }
    it = bucket.waiters.erase(it);
    waiter->notified = true;
    waiter->wake.notify_one();
    ++woken;
  }
  return woken;
}

}  // namespace

// One load, store and cmpxchg per access width, and one rmw per operation and
// width, named as LowerAtomics.cpp names the imports; CellType is the width.
#define SYNERGY_ATOMIC_ACCESS(WasmType, HostType, LoadName, StoreName, CmpxchgName, CellType)   \
  HostType Z_synergyZ_##LoadName##_##WasmType(Z_synergy_instance_t* host, uint32_t address) {   \
    return perform<CellType>(host, AtomicOp::Load, address, 0);                                \
  }                                                                                            \
  void Z_synergyZ_##StoreName##_##WasmType(Z_synergy_instance_t* host, uint32_t address,       \
                                           HostType value) {                                   \
    perform<CellType>(host, AtomicOp::Store, address, CellType(value));                        \
  }                                                                                            \
  HostType Z_synergyZ_##CmpxchgName##_##WasmType(Z_synergy_instance_t* host, uint32_t address, \
                                                 HostType expected, HostType replacement) {    \
    return perform<CellType>(host, AtomicOp::Cmpxchg, address, CellType(expected),             \
                             CellType(replacement));                                           \
  }

#define SYNERGY_ATOMIC_RMW(WasmType, HostType, Prefix, Suffix, CellType)                \
  HostType Z_synergyZ_##Prefix##_add##Suffix##_##WasmType(Z_synergy_instance_t* host,   \
                                  uint32_t address, HostType value) {                   \
    return perform<CellType>(host, AtomicOp::Add, address, CellType(value));            \
  }                                                                                     \
  HostType Z_synergyZ_##Prefix##_sub##Suffix##_##WasmType(Z_synergy_instance_t* host,   \
                                  uint32_t address, HostType value) {                   \
    return perform<CellType>(host, AtomicOp::Sub, address, CellType(value));            \
  }                                                                                     \
  HostType Z_synergyZ_##Prefix##_and##Suffix##_##WasmType(Z_synergy_instance_t* host,   \
                                  uint32_t address, HostType value) {                   \
    return perform<CellType>(host, AtomicOp::And, address, CellType(value));            \
  }                                                                                     \
  HostType Z_synergyZ_##Prefix##_or##Suffix##_##WasmType(Z_synergy_instance_t* host,    \
                                  uint32_t address, HostType value) {                   \
    return perform<CellType>(host, AtomicOp::Or, address, CellType(value));             \
  }                                                                                     \
  HostType Z_synergyZ_##Prefix##_xor##Suffix##_##WasmType(Z_synergy_instance_t* host,   \
                                  uint32_t address, HostType value) {                   \
    return perform<CellType>(host, AtomicOp::Xor, address, CellType(value));            \
  }                                                                                     \
  HostType Z_synergyZ_##Prefix##_xchg##Suffix##_##WasmType(Z_synergy_instance_t* host,  \
                                  uint32_t address, HostType value) {                   \
    return perform<CellType>(host, AtomicOp::Xchg, address, CellType(value));           \
  }

extern "C" {

SYNERGY_ATOMIC_ACCESS(i32, uint32_t, atomic_load, atomic_store, atomic_cmpxchg, uint32_t)
SYNERGY_ATOMIC_ACCESS(i32, uint32_t, atomic_load8_u, atomic_store8, atomic_cmpxchg8_u, uint8_t)
SYNERGY_ATOMIC_ACCESS(i32, uint32_t, atomic_load16_u, atomic_store16, atomic_cmpxchg16_u, uint16_t)
SYNERGY_ATOMIC_ACCESS(i64, uint64_t, atomic_load, atomic_store, atomic_cmpxchg, uint64_t)
SYNERGY_ATOMIC_ACCESS(i64, uint64_t, atomic_load8_u, atomic_store8, atomic_cmpxchg8_u, uint8_t)
SYNERGY_ATOMIC_ACCESS(i64, uint64_t, atomic_load16_u, atomic_store16, atomic_cmpxchg16_u, uint16_t)
SYNERGY_ATOMIC_ACCESS(i64, uint64_t, atomic_load32_u, atomic_store32, atomic_cmpxchg32_u, uint32_t)

SYNERGY_ATOMIC_RMW(i32, uint32_t, atomic_rmw, , uint32_t)
SYNERGY_ATOMIC_RMW(i32, uint32_t, atomic_rmw8, _u, uint8_t)
SYNERGY_ATOMIC_RMW(i32, uint32_t, atomic_rmw16, _u, uint16_t)
SYNERGY_ATOMIC_RMW(i64, uint64_t, atomic_rmw, , uint64_t)
SYNERGY_ATOMIC_RMW(i64, uint64_t, atomic_rmw8, _u, uint8_t)
SYNERGY_ATOMIC_RMW(i64, uint64_t, atomic_rmw16, _u, uint16_t)
SYNERGY_ATOMIC_RMW(i64, uint64_t, atomic_rmw32, _u, uint32_t)

uint32_t Z_synergyZ_atomic_wait32(Z_synergy_instance_t* host, uint32_t address, uint32_t expected,
                                  uint64_t timeoutNs) {
  return wait<uint32_t>(host, address, expected, int64_t(timeoutNs));
}

uint32_t Z_synergyZ_atomic_wait64(Z_synergy_instance_t* host, uint32_t address, uint64_t expected,
                                  uint64_t timeoutNs) {
  return wait<uint64_t>(host, address, expected, int64_t(timeoutNs));
}

uint32_t Z_synergyZ_atomic_notify(Z_synergy_instance_t* host, uint32_t address, uint32_t count) {
  return notify(host, address, count);
}

void Z_synergyZ_atomic_fence(Z_synergy_instance_t*) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

}  // extern "C"

#undef SYNERGY_ATOMIC_ACCESS
#undef SYNERGY_ATOMIC_RMW

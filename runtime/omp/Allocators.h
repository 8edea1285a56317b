//===- Allocators.h - OpenMP 5.0 memory allocators --------------------------===//
//
// The predefined allocators (omp_default_mem_alloc ... omp_thread_mem_alloc)
// and those omp_init_allocator makes from a memory space and traits. Every
// memory space is the guest heap: a granule has one linear memory, so
// "large capacity", "high bandwidth" and "low latency" memory are all the
// same memory, which the spec allows. What allocators still change is
// observable: the alignment trait, and a pool_size whose exhaustion leads to
// the fallback trait (another allocator, the default one, a null result, or
// ending the program).
//
// An allocator handle is a small integer the guest stores: 1-8 are the
// predefined ones, user allocators count up from kFirstUserAllocator and are
// never reused, so a stale handle is refused rather than aliased.
//
// A job whose threads span hosts (omp/RemoteThreads.h) has one table, the
// main host's: a thread on a thread host creates, looks up, destroys and
// charges pools through it (omp/ThreadHostSync.h), so handles mean the same
// on every host and a pool is exhausted once, not once per host.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>

namespace synergy::omp {

// Guest values of omp.h's allocator enumerations.
inline constexpr uint32_t kNullAllocator = 0;
inline constexpr uint32_t kDefaultMemAllocator = 1;
inline constexpr uint32_t kLastPredefinedAllocator = 8;  // omp_thread_mem_alloc
inline constexpr uint32_t kFirstUserAllocator = 1024;

enum class AllocatorFallback { DefaultMemory, Null, Abort, Allocator };

struct AllocatorTraits {
  uint32_t alignment = 1;
  uint64_t poolBytes = UINT64_MAX;
  AllocatorFallback fallback = AllocatorFallback::DefaultMemory;
  uint32_t fallbackAllocator = kNullAllocator;
};

// One guest omp_alloctrait_t: { omp_alloctrait_key_t key; omp_uintptr_t value; }.
struct GuestAllocatorTrait {
  uint32_t key;
  uint32_t value;
};

// The traits omp_init_allocator's arguments ask for; nothing when the
// memory space or a trait is unknown or unsupported.
std::optional<AllocatorTraits> allocatorTraitsFrom(uint32_t memorySpace,
                                                   std::span<const GuestAllocatorTrait> traits);

// Traits as two u64 between hosts (omp/SyncMessages.h): the log2 of the
// alignment in bits 0-7, the fallback in bits 8-14, bit 15 set, the
// fallback allocator in bits 32-63; then the pool size. The decoder checks
// every field (the words come from another host).
void encodeAllocatorTraits(const AllocatorTraits& traits, uint64_t words[2]);
bool decodeAllocatorTraits(const uint64_t words[2], AllocatorTraits& traits);

class AllocatorTable {
 public:
  // The new allocator's handle, or kNullAllocator when every handle was used.
  uint32_t create(const AllocatorTraits& traits);
  // False for predefined and unknown handles.
  bool destroy(uint32_t handle);
  // The traits of a predefined or live user allocator.
  std::optional<AllocatorTraits> traits(uint32_t handle);

  // Pool accounting: reserves `bytes` of `handle`'s pool, false when it
  // would overflow it. Predefined pools are unlimited.
  bool reserve(uint32_t handle, uint64_t bytes);
  void unreserve(uint32_t handle, uint64_t bytes);

 private:
  struct UserAllocator {
    AllocatorTraits traits;
    uint64_t usedBytes = 0;
  };
  std::mutex lock_;
  std::map<uint32_t, UserAllocator> allocators_;
  uint32_t nextHandle_ = kFirstUserAllocator;
};

}  // namespace synergy::omp

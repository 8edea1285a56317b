//===- Allocators.cpp - omp_alloc and friends, __kmpc_alloc -----------------===//
//
// The OpenMP 5.0 memory management routines as host functions, and the
// __kmpc_alloc / __kmpc_aligned_alloc / __kmpc_free calls clang emits for
// `allocate` clauses and directives.
//
// Blocks come from the guest's own malloc (so they are ordinary guest heap
// and, under --dsm, travel in diffs like any other write). Each block starts
// with a 16-byte header just below the pointer the guest gets: the malloc'd
// address, the requested size, the allocator and a tag. omp_free and
// omp_realloc read it back to free the right address and refund the right
// pool; a pointer without the tag was not made here and traps, instead of
// handing a guest-chosen address to free.
//
// On a thread host inside a spread region the user allocators are the main
// host's (Allocators.h): every question about one is a request there, while
// the predefined ones, which never change and have no pool, stay local.
//
//===----------------------------------------------------------------------===//
#include "omp/Allocators.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>
#include <string>

#include "omp/Team.h"
#include "omp/ThreadHostSync.h"

using synergy::granule::Granule;

namespace synergy::omp {
namespace {

// omp_alloctrait_key_t and omp_alloctrait_value_t, as omp.h numbers them.
enum TraitKey : uint32_t {
  kSyncHint = 1,
  kAlignment = 2,
  kAccess = 3,
  kPoolSize = 4,
  kFallback = 5,
  kFallbackData = 6,
  kPinned = 7,
  kPartition = 8,
};
enum TraitValue : uint32_t {
  kFalse = 0,
  kTrue = 1,
  kContended = 3,
  kUncontended = 4,
  kSerialized = 5,
  kPrivate = 6,
  kAll = 7,
  kThread = 8,
  kPteam = 9,
  kCgroup = 10,
  kDefaultMemFallback = 11,
  kNullFallback = 12,
  kAbortFallback = 13,
  kAllocatorFallback = 14,
  kEnvironment = 15,
  kNearest = 16,
  kBlocked = 17,
  kInterleaved = 18,
  kDefaultValue = UINT32_MAX,
};
constexpr uint32_t kLastMemorySpace = 4;  // omp_low_lat_mem_space

// encodeAllocatorTraits's fields (Allocators.h).
constexpr uint64_t kTraitsPresent = 1u << 15;
constexpr uint64_t kTraitsFallbackShift = 8;
constexpr uint64_t kTraitsFallbackMask = 0x7f;

bool isOneOf(uint32_t value, std::initializer_list<uint32_t> allowed) {
  return value == kDefaultValue ||
         std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// Applies one trait; false when its key or value is not one the spec defines
// or one this runtime cannot honour (pinned memory).
bool applyTrait(AllocatorTraits& traits, const GuestAllocatorTrait& trait) {
  switch (trait.key) {
    case kSyncHint: return isOneOf(trait.value, {kContended, kUncontended, kSerialized, kPrivate});
    case kAccess: return isOneOf(trait.value, {kAll, kCgroup, kPteam, kThread});
    case kPartition: return isOneOf(trait.value, {kEnvironment, kNearest, kBlocked, kInterleaved});
    case kPinned: return isOneOf(trait.value, {kFalse});
    case kAlignment:
      if (trait.value == kDefaultValue) return true;
      if (trait.value == 0 || (trait.value & (trait.value - 1))) return false;
      traits.alignment = trait.value;
      return true;
    case kPoolSize:
      if (trait.value != kDefaultValue) traits.poolBytes = trait.value;
      return true;
    case kFallback:
      switch (trait.value) {
        case kDefaultValue:
        case kDefaultMemFallback: traits.fallback = AllocatorFallback::DefaultMemory; return true;
        case kNullFallback: traits.fallback = AllocatorFallback::Null; return true;
        case kAbortFallback: traits.fallback = AllocatorFallback::Abort; return true;
        case kAllocatorFallback: traits.fallback = AllocatorFallback::Allocator; return true;
      }
      return false;
    case kFallbackData:
      traits.fallbackAllocator = trait.value;
      return true;
  }
  return false;
}

// The header below every block handed to the guest.
struct BlockHeader {
  uint32_t block;      // what the guest's malloc returned
  uint32_t bytes;      // what was asked for
  uint32_t allocator;  // the allocator whose pool it counts against
  uint32_t tag;
};
constexpr uint32_t kBlockTag = 0x4f4d5041;  // "APMO"
constexpr uint32_t kHeaderBytes = sizeof(BlockHeader);
static_assert(kHeaderBytes == 16);
constexpr uint32_t kMinimumAlignment = 16;

AllocatorTable& allocators(Granule& granule) { return ompRuntime(granule).allocators(); }

bool isUserAllocator(uint32_t handle) { return handle >= kFirstUserAllocator; }

// The link to the main host's table when `granule` runs on a thread host
// and `handle` may be a user allocator; null when the local table answers.
ThreadHostSync* mainHostTable(Granule& granule, uint32_t handle) {
  return isUserAllocator(handle) ? threadHostSyncOf(granule) : nullptr;
}

std::optional<AllocatorTraits> traitsOf(Granule& granule, uint32_t handle) {
  if (ThreadHostSync* remote = mainHostTable(granule, handle))
    return remote->allocatorTraits(ompThread(granule), handle);
  return allocators(granule).traits(handle);
}

bool reservePool(Granule& granule, uint32_t handle, uint64_t bytes) {
  if (ThreadHostSync* remote = mainHostTable(granule, handle))
    return remote->reservePool(ompThread(granule), handle, bytes);
  return allocators(granule).reserve(handle, bytes);
}

void refundPool(Granule& granule, uint32_t handle, uint64_t bytes) {
  if (ThreadHostSync* remote = mainHostTable(granule, handle))
    return remote->refundPool(ompThread(granule), handle, bytes);
  allocators(granule).unreserve(handle, bytes);
}

// Takes `bytes` from the guest heap at `alignment` for `allocator` itself,
// with no fallback: 0 when its pool or the heap is exhausted.
uint32_t allocateFrom(Granule& granule, uint32_t allocator, uint64_t bytes, uint32_t alignment) {
  uint64_t total = bytes + kHeaderBytes + alignment - 1;
  if (total > UINT32_MAX) return 0;
  if (!reservePool(granule, allocator, bytes)) return 0;
  uint32_t block = guestMalloc(granule, uint32_t(total));
  if (!block) {
    refundPool(granule, allocator, bytes);
    return 0;
  }
  uint32_t address = (block + kHeaderBytes + alignment - 1) & ~(alignment - 1);
  BlockHeader header{block, uint32_t(bytes), allocator, kBlockTag};
  std::memcpy(granule.guestBytes(address - kHeaderBytes, kHeaderBytes), &header, kHeaderBytes);
  return address;
}

// omp_aligned_alloc's semantics: the allocator's own memory, then its
// fallback chain. A chain that comes back to an allocator it tried has a
// cycle of allocator_fb traits in it, and ends there with a null result.
uint32_t allocate(Granule& granule, uint64_t bytes, uint32_t alignment, uint32_t allocator) {
  if (bytes == 0) return 0;
  if (alignment == 0 || (alignment & (alignment - 1))) return 0;
  if (allocator == kNullAllocator) allocator = ompThread(granule).icvs.defaultAllocator;
  for (std::set<uint32_t> tried; tried.insert(allocator).second;) {
    std::optional<AllocatorTraits> traits = traitsOf(granule, allocator);
    if (!traits) granule.trap("omp_alloc: " + std::to_string(allocator) + " is not an allocator");
    uint32_t address = allocateFrom(granule, allocator, bytes,
                                    std::max({alignment, traits->alignment, kMinimumAlignment}));
    if (address) return address;
    switch (traits->fallback) {
      case AllocatorFallback::Null: return 0;
      case AllocatorFallback::Abort:
        granule.trap("omp_alloc: out of memory allocating " + std::to_string(bytes) +
                     " bytes (the allocator's fallback is abort_fb)");
      case AllocatorFallback::DefaultMemory:
        if (allocator == kDefaultMemAllocator) return 0;
        allocator = kDefaultMemAllocator;
        break;
      case AllocatorFallback::Allocator:
        allocator = traits->fallbackAllocator == kNullAllocator ? kDefaultMemAllocator
                                                                 : traits->fallbackAllocator;
        break;
    }
  }
  return 0;
}

BlockHeader headerOf(Granule& granule, uint32_t address, const char* caller) {
  BlockHeader header;
  if (address < kHeaderBytes) granule.trap(std::string(caller) + ": not an omp_alloc pointer");
  std::memcpy(&header, granule.guestBytes(address - kHeaderBytes, kHeaderBytes), kHeaderBytes);
  if (header.tag != kBlockTag || header.block >= address)
    granule.trap(std::string(caller) + ": not an omp_alloc pointer");
  return header;
}

void release(Granule& granule, uint32_t address, const char* caller) {
  if (!address) return;
  BlockHeader header = headerOf(granule, address, caller);
  // Cleared first, so freeing the same pointer twice traps instead of
  // freeing whatever reused the block.
  std::memset(granule.guestBytes(address - kHeaderBytes, kHeaderBytes), 0, kHeaderBytes);
  refundPool(granule, header.allocator, header.bytes);
  guestFree(granule, header.block);
}

// The free_allocator argument of omp_realloc is not needed: the header
// names the allocator that made the block.
uint32_t reallocate(Granule& granule, uint32_t address, uint32_t bytes, uint32_t allocator) {
  if (!address) return allocate(granule, bytes, 1, allocator);
  if (bytes == 0) {
    release(granule, address, "omp_realloc");
    return 0;
  }
  BlockHeader old = headerOf(granule, address, "omp_realloc");
  uint32_t fresh = allocate(granule, bytes, 1, allocator ? allocator : old.allocator);
  if (!fresh) return 0;
  uint32_t kept = std::min(old.bytes, bytes);
  std::memmove(granule.guestBytes(fresh, kept), granule.guestBytes(address, kept), kept);
  release(granule, address, "omp_realloc");
  return fresh;
}

uint32_t allocateZeroed(Granule& granule, uint32_t count, uint32_t size, uint32_t alignment,
                        uint32_t allocator) {
  uint64_t bytes = uint64_t(count) * size;
  if (bytes > UINT32_MAX) return 0;
  uint32_t address = allocate(granule, bytes, alignment, allocator);
  if (address) std::memset(granule.guestBytes(address, bytes), 0, bytes);
  return address;
}

}  // namespace

std::optional<AllocatorTraits> allocatorTraitsFrom(uint32_t memorySpace,
                                                   std::span<const GuestAllocatorTrait> traits) {
  if (memorySpace > kLastMemorySpace) return std::nullopt;
  AllocatorTraits made;
  for (const GuestAllocatorTrait& trait : traits)
    if (!applyTrait(made, trait)) return std::nullopt;
  return made;
}

void encodeAllocatorTraits(const AllocatorTraits& traits, uint64_t words[2]) {
  words[0] = uint64_t(std::countr_zero(traits.alignment)) |
             uint64_t(traits.fallback) << kTraitsFallbackShift | kTraitsPresent |
             uint64_t(traits.fallbackAllocator) << 32;
  words[1] = traits.poolBytes;
}

bool decodeAllocatorTraits(const uint64_t words[2], AllocatorTraits& traits) {
  uint64_t alignmentLog2 = words[0] & 0xff;
  uint64_t fallback = (words[0] >> kTraitsFallbackShift) & kTraitsFallbackMask;
  if (!(words[0] & kTraitsPresent) || (words[0] & 0xffff0000u) || alignmentLog2 > 31 ||
      fallback > uint64_t(AllocatorFallback::Allocator))
    return false;
  traits.alignment = uint32_t(1) << alignmentLog2;
  traits.fallback = AllocatorFallback(fallback);
  traits.fallbackAllocator = uint32_t(words[0] >> 32);
  traits.poolBytes = words[1];
  return true;
}

uint32_t AllocatorTable::create(const AllocatorTraits& traits) {
  std::lock_guard guard(lock_);
  if (nextHandle_ < kFirstUserAllocator) return kNullAllocator;  // wrapped round
  uint32_t handle = nextHandle_++;
  allocators_[handle].traits = traits;
  return handle;
}

bool AllocatorTable::destroy(uint32_t handle) {
  std::lock_guard guard(lock_);
  return allocators_.erase(handle) != 0;
}

std::optional<AllocatorTraits> AllocatorTable::traits(uint32_t handle) {
  if (handle != kNullAllocator && handle <= kLastPredefinedAllocator) return AllocatorTraits{};
  std::lock_guard guard(lock_);
  auto found = allocators_.find(handle);
  if (found == allocators_.end()) return std::nullopt;
  return found->second.traits;
}

bool AllocatorTable::reserve(uint32_t handle, uint64_t bytes) {
  std::lock_guard guard(lock_);
  auto found = allocators_.find(handle);
  if (found == allocators_.end()) return true;
  UserAllocator& user = found->second;
  if (bytes > user.traits.poolBytes - user.usedBytes) return false;
  user.usedBytes += bytes;
  return true;
}

void AllocatorTable::unreserve(uint32_t handle, uint64_t bytes) {
  std::lock_guard guard(lock_);
  auto found = allocators_.find(handle);
  if (found == allocators_.end()) return;
  UserAllocator& user = found->second;
  user.usedBytes -= std::min(user.usedBytes, bytes);
}

}  // namespace synergy::omp

using namespace synergy::omp;

extern "C" {

uint32_t Z_envZ_omp_init_allocator(void* host, uint32_t memorySpace, uint32_t traitCount,
                                   uint32_t traits) {
  Granule& granule = Granule::fromHost(host);
  if (int32_t(traitCount) < 0) return kNullAllocator;
  std::span<const GuestAllocatorTrait> list;
  if (traitCount)
    list = {granule.guestPtr<GuestAllocatorTrait>(traits, traitCount), traitCount};
  std::optional<AllocatorTraits> made = allocatorTraitsFrom(memorySpace, list);
  if (!made) return kNullAllocator;
  if (ThreadHostSync* remote = threadHostSyncOf(granule))
    return remote->createAllocator(ompThread(granule), *made);
  return allocators(granule).create(*made);
}

void Z_envZ_omp_destroy_allocator(void* host, uint32_t allocator) {
  Granule& granule = Granule::fromHost(host);
  if (!isUserAllocator(allocator)) return;
  if (ThreadHostSync* remote = mainHostTable(granule, allocator))
    return remote->destroyAllocator(ompThread(granule), allocator);
  allocators(granule).destroy(allocator);
}

void Z_envZ_omp_set_default_allocator(void* host, uint32_t allocator) {
  Granule& granule = Granule::fromHost(host);
  if (!traitsOf(granule, allocator))
    granule.trap("omp_set_default_allocator: " + std::to_string(allocator) +
                 " is not an allocator");
  ompThread(granule).icvs.defaultAllocator = allocator;
}

uint32_t Z_envZ_omp_get_default_allocator(void* host) {
  return ompThread(Granule::fromHost(host)).icvs.defaultAllocator;
}

uint32_t Z_envZ_omp_alloc(void* host, uint32_t bytes, uint32_t allocator) {
  return allocate(Granule::fromHost(host), bytes, 1, allocator);
}

uint32_t Z_envZ_omp_aligned_alloc(void* host, uint32_t alignment, uint32_t bytes,
                                  uint32_t allocator) {
  return allocate(Granule::fromHost(host), bytes, alignment, allocator);
}

uint32_t Z_envZ_omp_calloc(void* host, uint32_t count, uint32_t size, uint32_t allocator) {
  return allocateZeroed(Granule::fromHost(host), count, size, 1, allocator);
}

uint32_t Z_envZ_omp_aligned_calloc(void* host, uint32_t alignment, uint32_t count, uint32_t size,
                                   uint32_t allocator) {
  return allocateZeroed(Granule::fromHost(host), count, size, alignment, allocator);
}

uint32_t Z_envZ_omp_realloc(void* host, uint32_t address, uint32_t bytes, uint32_t allocator,
                            uint32_t) {
  return reallocate(Granule::fromHost(host), address, bytes, allocator);
}

void Z_envZ_omp_free(void* host, uint32_t address, uint32_t) {
  release(Granule::fromHost(host), address, "omp_free");
}

uint32_t Z_envZ___kmpc_alloc(void* host, uint32_t, uint32_t bytes, uint32_t allocator) {
  return allocate(Granule::fromHost(host), bytes, 1, allocator);
}

uint32_t Z_envZ___kmpc_aligned_alloc(void* host, uint32_t, uint32_t alignment, uint32_t bytes,
                                     uint32_t allocator) {
  return allocate(Granule::fromHost(host), bytes, alignment, allocator);
}

uint32_t Z_envZ___kmpc_calloc(void* host, uint32_t, uint32_t count, uint32_t size,
                              uint32_t allocator) {
  return allocateZeroed(Granule::fromHost(host), count, size, 1, allocator);
}

uint32_t Z_envZ___kmpc_realloc(void* host, uint32_t, uint32_t address, uint32_t bytes,
                               uint32_t allocator, uint32_t) {
  return reallocate(Granule::fromHost(host), address, bytes, allocator);
}

void Z_envZ___kmpc_free(void* host, uint32_t, uint32_t address, uint32_t) {
  release(Granule::fromHost(host), address, "__kmpc_free");
}

uint32_t Z_envZ___kmpc_init_allocator(void* host, uint32_t, uint32_t memorySpace,
                                      uint32_t traitCount, uint32_t traits) {
  return Z_envZ_omp_init_allocator(host, memorySpace, traitCount, traits);
}

void Z_envZ___kmpc_destroy_allocator(void* host, uint32_t, uint32_t allocator) {
  Z_envZ_omp_destroy_allocator(host, allocator);
}

}  // extern "C"

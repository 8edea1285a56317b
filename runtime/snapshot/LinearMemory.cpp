//===- LinearMemory.cpp - guard-page wasm32 memory, private pages --------===//
#include "snapshot/LinearMemory.h"

#include "snapshot/HugePagePolicy.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

namespace synergy::snapshot {
namespace {

// A transparent huge page on x86-64 and arm64 (4 KiB base pages).
constexpr uint64_t kHugePageBytes = 2ull << 20;

// Asks for transparent huge pages on [address, address + bytes) when the
// stretch is at least one huge page: one growth that large is a big array
// in the making, which then faults once per 2 MiB. The initial memory (the
// stack and static data) and a heap creeping up in small growths keep
// 4 KiB pages, as a native process's stack and brk heap do: there a huge
// page would zero 2 MiB for the few kilobytes a short program touches,
// which cost a warm start about a millisecond. Inside a virtual machine
// that hands free memory back to its host a fresh huge page costs several
// times its 512 base pages, so there nothing is advised (HugePagePolicy.h).
// Where the kernel has no transparent huge pages, or has them off, the
// memory simply keeps 4 KiB pages, so failure is not an error.
void adviseHugePages(uint8_t* address, uint64_t bytes) {
  if (bytes >= kHugePageBytes && largeGrowthWantsHugePages())
    madvise(address, bytes, MADV_HUGEPAGE);
}

}  // namespace

bool LinearMemory::create(uint64_t initialPages, uint64_t maxPages, std::string& error) {
  maxPages_ = std::min(maxPages, kMaxWasm32Pages);
  if (initialPages > maxPages_) {
    error = "initial memory exceeds its maximum";
    return false;
  }
  // Reserve one huge page more than needed and trim both ends, so the base
  // is 2 MiB aligned: a huge page can only back an aligned 2 MiB stretch.
  const uint64_t padded = kReservationBytes + kHugePageBytes;
  void* reservation =
      mmap(nullptr, padded, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reservation == MAP_FAILED) {
    error = std::string("cannot reserve linear memory: ") + std::strerror(errno);
    return false;
  }
  auto* start = static_cast<uint8_t*>(reservation);
  const uint64_t lead =
      (kHugePageBytes - reinterpret_cast<uintptr_t>(start) % kHugePageBytes) % kHugePageBytes;
  if (lead > 0) munmap(start, lead);
  munmap(start + lead + kReservationBytes, kHugePageBytes - lead);
  base_ = start + lead;
  if (mprotect(base_, initialPages * kWasmPageSize, PROT_READ | PROT_WRITE) != 0) {
    error = "cannot map initial linear memory";
    return false;
  }
  pages_ = initialPages;
  return true;
}

LinearMemory::~LinearMemory() {
  if (base_) munmap(base_, kReservationBytes);
}

int64_t LinearMemory::grow(uint64_t deltaPages) {
  uint64_t oldPages = pages_;
  if (deltaPages > maxPages_ - oldPages) return -1;
  if (deltaPages == 0) return int64_t(oldPages);
  uint64_t oldBytes = oldPages * kWasmPageSize;
  uint64_t newBytes = (oldPages + deltaPages) * kWasmPageSize;
  // The tail is still the reservation's own anonymous memory (mapCopyOnWrite
  // puts fresh anonymous pages back past a snapshot), so opening it up is
  // all growth takes; its pages read as zeros until written.
  if (mprotect(base_ + oldBytes, newBytes - oldBytes, PROT_READ | PROT_WRITE) != 0) return -1;
  adviseHugePages(base_ + oldBytes, newBytes - oldBytes);
  pages_ = oldPages + deltaPages;
  return int64_t(oldPages);
}

bool LinearMemory::mapCopyOnWrite(int fd, uint64_t bytes) {
  if (bytes % kWasmPageSize != 0 || bytes / kWasmPageSize > maxPages_) return false;
  uint64_t oldBytes = sizeBytes();
  if (bytes > 0 && mmap(base_, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
                       MAP_FAILED)
    return false;
  // Past the snapshot, fresh inaccessible anonymous pages, as in a new
  // reservation, so later growth starts from zeros.
  if (oldBytes > bytes) {
    if (mmap(base_ + bytes, oldBytes - bytes, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
      return false;
    adviseHugePages(base_ + bytes, oldBytes - bytes);
  }
  pages_ = bytes / kWasmPageSize;
  copyOnWrite_ = true;
  return true;
}

// Whether [offset, offset + bytes) is a non-empty run of whole wasm pages
// inside the accessible prefix.
static bool isAccessiblePageRange(uint64_t offset, uint64_t bytes, uint64_t sizeBytes) {
  return bytes > 0 && offset % kWasmPageSize == 0 && bytes % kWasmPageSize == 0 &&
         offset <= sizeBytes && bytes <= sizeBytes - offset;
}

bool LinearMemory::mapSharedFile(uint64_t offset, int fd, uint64_t bytes) {
  if (!isAccessiblePageRange(offset, bytes, sizeBytes())) return false;
  return mmap(base_ + offset, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) !=
         MAP_FAILED;
}

bool LinearMemory::unmapSharedFile(uint64_t offset, uint64_t bytes) {
  if (!isAccessiblePageRange(offset, bytes, sizeBytes())) return false;
  return mmap(base_ + offset, bytes, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) != MAP_FAILED;
}

bool LinearMemory::reservationContains(const void* address) const {
  auto* p = static_cast<const uint8_t*>(address);
  return base_ && p >= base_ && p < base_ + kReservationBytes;
}

}  // namespace synergy::snapshot

//===- LinearMemory.cpp - guard-page wasm32 memory backed by a memfd -------===//
#include "snapshot/LinearMemory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace synergy::snapshot {

bool LinearMemory::create(uint64_t initialPages, uint64_t maxPages, std::string& error) {
  maxPages_ = std::min(maxPages, kMaxWasm32Pages);
  if (initialPages > maxPages_) {
    error = "initial memory exceeds its maximum";
    return false;
  }
  void* reservation = mmap(nullptr, kReservationBytes, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reservation == MAP_FAILED) {
    error = std::string("cannot reserve linear memory: ") + std::strerror(errno);
    return false;
  }
  base_ = static_cast<uint8_t*>(reservation);
  memfd_ = memfd_create("synergy-linear-memory", MFD_CLOEXEC);
  if (memfd_ < 0) {
    error = std::string("memfd_create: ") + std::strerror(errno);
    return false;
  }
  if (grow(initialPages) < 0) {
    error = "cannot map initial linear memory";
    return false;
  }
  return true;
}

LinearMemory::~LinearMemory() {
  if (base_) munmap(base_, kReservationBytes);
  if (memfd_ >= 0) close(memfd_);
}

int64_t LinearMemory::grow(uint64_t deltaPages) {
  uint64_t oldPages = pages_;
  if (deltaPages > maxPages_ - oldPages) return -1;
  if (deltaPages == 0) return int64_t(oldPages);
  uint64_t oldBytes = oldPages * kWasmPageSize;
  uint64_t newBytes = (oldPages + deltaPages) * kWasmPageSize;
  if (ftruncate(memfd_, off_t(newBytes)) != 0) return -1;
  // Only the new tail is mapped from our memfd: after a copy-on-write restore
  // the prefix is a private view of a snapshot, which must stay in place.
  void* tail = mmap(base_ + oldBytes, newBytes - oldBytes, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_FIXED, memfd_, off_t(oldBytes));
  if (tail == MAP_FAILED) return -1;
  pages_ = oldPages + deltaPages;
  return int64_t(oldPages);
}

bool LinearMemory::mapCopyOnWrite(int fd, uint64_t bytes) {
  if (bytes % kWasmPageSize != 0 || bytes / kWasmPageSize > maxPages_) return false;
  uint64_t oldBytes = sizeBytes();
  if (bytes > 0 && mmap(base_, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
                       MAP_FAILED)
    return false;
  if (oldBytes > bytes &&
      mmap(base_ + bytes, oldBytes - bytes, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
    return false;
  // Later growth maps fresh zero pages from our memfd past the snapshot.
  if (ftruncate(memfd_, 0) != 0 || ftruncate(memfd_, off_t(bytes)) != 0) return false;
  pages_ = bytes / kWasmPageSize;
  copyOnWrite_ = true;
  return true;
}

bool LinearMemory::reservationContains(const void* address) const {
  auto* p = static_cast<const uint8_t*>(address);
  return base_ && p >= base_ && p < base_ + kReservationBytes;
}

}  // namespace synergy::snapshot

//===- LinearMemory.h - guard-page wasm32 memory backed by a memfd ---------===//
//
// A wasm32 linear memory reserved as 8 GiB of address space: every 32-bit
// address plus any 32-bit offset lands inside the reservation, so AOT code
// needs no bounds checks (the guard pages fault instead) and the base address
// never moves when the memory grows. The accessible prefix is a MAP_SHARED
// mapping of a memfd, which is what lets a snapshot be taken from the file
// and restored later as a copy-on-write mapping instead of a copy.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>

namespace synergy::snapshot {

inline constexpr uint64_t kWasmPageSize = 65536;
inline constexpr uint64_t kMaxWasm32Pages = 65536;
inline constexpr uint64_t kReservationBytes = 8ull << 30;

class LinearMemory {
 public:
  // Reserves the address space and maps `initialPages`. Returns false (and
  // sets `error`) when the system refuses.
  bool create(uint64_t initialPages, uint64_t maxPages, std::string& error);
  ~LinearMemory();
  LinearMemory() = default;
  LinearMemory(const LinearMemory&) = delete;
  LinearMemory& operator=(const LinearMemory&) = delete;

  // Grows by `deltaPages`; returns the old page count, or -1 on failure.
  int64_t grow(uint64_t deltaPages);

  // Replaces the whole memory with a private copy-on-write view of `fd`
  // (bytes [0, bytes)). Nothing is copied; pages are shared until written.
  bool mapCopyOnWrite(int fd, uint64_t bytes);

  uint8_t* base() const { return base_; }
  uint64_t sizeBytes() const { return pages_ * kWasmPageSize; }
  uint64_t pages() const { return pages_; }
  uint64_t maxPages() const { return maxPages_; }
  // The memfd holding every byte of the memory, or -1 once mapCopyOnWrite
  // has made its prefix a private view of another file.
  int fd() const { return copyOnWrite_ ? -1 : memfd_; }
  // Whether `address` lies inside this memory's reservation (accessible or not).
  bool reservationContains(const void* address) const;

 private:
  uint8_t* base_ = nullptr;
  int memfd_ = -1;
  uint64_t pages_ = 0;
  uint64_t maxPages_ = 0;
  bool copyOnWrite_ = false;
};

}  // namespace synergy::snapshot

//===- LinearMemory.h - guard-page wasm32 memory, private pages ----------===//
//
// A wasm32 linear memory reserved as 8 GiB of address space: every 32-bit
// address plus any 32-bit offset lands inside the reservation, so AOT code
// needs no bounds checks (the guard pages fault instead) and the base address
// never moves when the memory grows.
//
// The accessible prefix is private anonymous memory, made accessible page by
// page as the memory grows. Private anonymous pages take the kernel's
// cheapest fault path (a shared memfd mapping cost 1.5-1.7x per fault, and
// closing it freed the pages a second time at exit), and the reservation is
// 2 MiB aligned; each growth of at least 2 MiB is marked MADV_HUGEPAGE, so
// where transparent huge pages are in `madvise` mode a large first-touch
// array faults once per 2 MiB instead of once per 4 KiB, while the initial
// memory (stack, static data) and small heap growths keep 4 KiB pages.
// Inside a virtual machine whose free memory goes back to the host, fresh
// huge pages cost more than base pages and no growth is advised
// (HugePagePolicy.h).
// Nothing needs a file behind the memory: a snapshot
// copies the touched pages into its own memfd, and restoring maps that memfd
// copy-on-write over the prefix instead of copying it back.
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

  // Maps bytes [0, bytes) of `fd` shared (MAP_SHARED) over the accessible
  // pages [offset, offset + bytes), so that every memory mapping the same
  // file there sees one another's stores (an MPI shared-memory window).
  // Both must be whole 64 KiB pages inside the current size. False when
  // they are not or the system refuses.
  bool mapSharedFile(uint64_t offset, int fd, uint64_t bytes);
  // Puts fresh private zero pages back over [offset, offset + bytes),
  // ending such a mapping; the memory keeps its size.
  bool unmapSharedFile(uint64_t offset, uint64_t bytes);

  uint8_t* base() const { return base_; }
  uint64_t sizeBytes() const { return pages_ * kWasmPageSize; }
  uint64_t pages() const { return pages_; }
  uint64_t maxPages() const { return maxPages_; }
  // Whether every accessible page is anonymous memory, so that a page the
  // kernel has never populated reads as zeros. False once mapCopyOnWrite
  // has made the prefix a view of a file.
  bool isAnonymous() const { return !copyOnWrite_; }
  // Whether `address` lies inside this memory's reservation (accessible or not).
  bool reservationContains(const void* address) const;

 private:
  uint8_t* base_ = nullptr;
  uint64_t pages_ = 0;
  uint64_t maxPages_ = 0;
  bool copyOnWrite_ = false;
};

}  // namespace synergy::snapshot

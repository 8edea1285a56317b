//===- MemoryDiff.h - the bytes a replica changed, and where ---------------===//
//
// A byte-wise diff between a replica of a linear memory and the baseline it
// started from: ascending, non-overlapping (offset, length) ranges plus the
// replica's new bytes for them. A diff holds exactly the changed bytes and
// never an unchanged byte between two changes: another thread may be writing
// that byte in the main copy, and writing it back would undo that write.
//
// This is what a replica sends to the main copy (and, serialised, what a
// remote host would send over the network).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace synergy::snapshot {

struct DiffRange {
  uint64_t offset;      // in the memory
  uint64_t length;      // in bytes, never 0
  uint64_t dataOffset;  // where the range's bytes start in MemoryDiff::bytes()
};

class MemoryDiff {
 public:
  // Appends `length` bytes for [offset, offset + length). `offset` must not be
  // below the end of the last range; a range that starts exactly there
  // extends it.
  void append(uint64_t offset, const uint8_t* bytes, uint64_t length);

  // Writes the diff's bytes into `target` (a memory at least end() bytes long).
  void apply(uint8_t* target) const;

  const std::vector<DiffRange>& ranges() const { return ranges_; }
  // The changed bytes of all ranges, back to back.
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  const uint8_t* dataOf(const DiffRange& range) const { return bytes_.data() + range.dataOffset; }
  uint64_t changedBytes() const { return bytes_.size(); }
  bool empty() const { return ranges_.empty(); }
  // Empties the diff but keeps its storage, so a diff refilled at every
  // synchronisation point stops paying for fresh pages.
  void clear() {
    ranges_.clear();
    bytes_.clear();
  }
  // One past the last byte the diff writes (0 when empty).
  uint64_t end() const { return ranges_.empty() ? 0 : ranges_.back().offset + ranges_.back().length; }

  // Compact wire form: LEB128 range count, then per range the LEB128 gap
  // from the previous range's end and length, then all bytes.
  std::vector<uint8_t> serialise() const;
  // Parses serialise()'s output; returns false with `error` set when `data`
  // is malformed.
  static bool deserialise(const uint8_t* data, size_t size, MemoryDiff& out, std::string& error);

 private:
  friend void diffPages(const uint8_t* current, const uint8_t* baseline,
                        const std::vector<uint64_t>& pages, uint64_t pageSize, MemoryDiff& out);

  std::vector<DiffRange> ranges_;
  std::vector<uint8_t> bytes_;
};

// Diffs `current` against `baseline` over the listed pages (indices of
// `pageSize`-byte pages; ascending, as DirtyTracker::dirtyPages returns them)
// and returns exactly the bytes that differ, with `current`'s values. Equal
// data is skipped a 64-byte block at a time.
MemoryDiff diffPages(const uint8_t* current, const uint8_t* baseline,
                     const std::vector<uint64_t>& pages, uint64_t pageSize);
// The same, into `out` (cleared first, its storage reused).
void diffPages(const uint8_t* current, const uint8_t* baseline, const std::vector<uint64_t>& pages,
               uint64_t pageSize, MemoryDiff& out);

}  // namespace synergy::snapshot

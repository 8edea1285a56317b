//===- DiffMerger.h - folding replicas' diffs into the main copy -----------===//
//
// The main copy of a shared memory receives the diffs of many replicas.
// Bytes of a diff that fall in a merge region are combined element by element
// with the region's merge op (so concurrent reductions add up instead of the
// last diff winning); every other byte simply overwrites the main copy.
//
// The main copy then has to send changes back: DiffMerger remembers which
// bytes of the main copy the merged diffs may have changed, and turns them
// into one diff that brings a replica up to date over those bytes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <vector>

#include "snapshot/MemoryDiff.h"
#include "snapshot/MergeOp.h"

namespace synergy::snapshot {

// Merges `diff` (a replica's changes relative to `baseline`, its B0 values)
// into `main`. Regions must not overlap. An element of a region counts as
// changed when the diff touches any of its bytes; its B1 is the baseline
// element with the diff's bytes laid over it.
void mergeDiff(uint8_t* main, const uint8_t* baseline, const MemoryDiff& diff,
               const std::vector<MergeRegion>& regions);

struct ByteRange {
  uint64_t offset;
  uint64_t length;
};

class DiffMerger {
 public:
  // mergeDiff, also remembering the bytes of `main` it wrote: the diff's
  // bytes, widened to whole elements inside merge regions.
  void merge(uint8_t* main, const uint8_t* baseline, const MemoryDiff& diff,
             const std::vector<MergeRegion>& regions);

  // The bytes written since construction or reset(), ascending and
  // coalesced.
  const std::vector<ByteRange>& touchedRanges() const;

  // Main's current bytes over touchedRanges(). A replica that holds its
  // baseline plus its own already-merged changes equals the main copy over
  // those bytes after applying it; elsewhere nothing changed.
  MemoryDiff update(const uint8_t* main) const;

  // Forgets the touched bytes but keeps the storage for the next merges.
  void reset() {
    touched_.clear();
    ascending_ = true;
  }

 private:
  // Merged diffs are each ascending, so one merge (the common case, a push)
  // leaves touched_ ascending and coalesced; only a later diff that reaches
  // back below an earlier one makes touchedRanges() sort.
  mutable std::vector<ByteRange> touched_;
  mutable bool ascending_ = true;
};

}  // namespace synergy::snapshot

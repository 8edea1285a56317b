//===- DiffMerger.cpp - folding replicas' diffs into the main copy ---------===//
#include "snapshot/DiffMerger.h"

#include <algorithm>
#include <cstring>

namespace synergy::snapshot {
namespace {

// A merge region trimmed to whole elements.
struct ElementSpan {
  uint64_t begin;
  uint64_t end;
  uint64_t elementBytes;
  MergeOp op;
  MergeType type;
};

std::vector<ElementSpan> elementSpans(const std::vector<MergeRegion>& regions) {
  std::vector<ElementSpan> spans;
  for (const MergeRegion& region : regions) {
    uint64_t elementBytes = mergeTypeBytes(region.type);
    uint64_t whole = region.length / elementBytes * elementBytes;
    if (whole) spans.push_back({region.offset, region.offset + whole, elementBytes, region.op, region.type});
  }
  std::sort(spans.begin(), spans.end(),
            [](const ElementSpan& a, const ElementSpan& b) { return a.begin < b.begin; });
  return spans;
}

void noteTouched(std::vector<ByteRange>* touched, uint64_t offset, uint64_t length) {
  if (!touched) return;
  if (!touched->empty() && touched->back().offset + touched->back().length >= offset) {
    uint64_t end = std::max(touched->back().offset + touched->back().length, offset + length);
    touched->back().length = end - touched->back().offset;
    return;
  }
  touched->push_back({offset, length});
}

// The replica's new value of the element at [begin, end): its baseline bytes
// with every diff byte in that span laid over them. `first` is the first
// range that can reach the element.
void replicaElement(const uint8_t* baseline, const MemoryDiff& diff, size_t first, uint64_t begin,
                    uint64_t end, uint8_t* out) {
  std::memcpy(out, baseline + begin, end - begin);
  const std::vector<DiffRange>& ranges = diff.ranges();
  for (size_t i = first; i < ranges.size() && ranges[i].offset < end; ++i) {
    uint64_t from = std::max(ranges[i].offset, begin);
    uint64_t to = std::min(ranges[i].offset + ranges[i].length, end);
    if (from < to) std::memcpy(out + (from - begin), diff.dataOf(ranges[i]) + (from - ranges[i].offset), to - from);
  }
}

void mergeInto(uint8_t* main, const uint8_t* baseline, const MemoryDiff& diff,
               const std::vector<MergeRegion>& regions, std::vector<ByteRange>* touched) {
  std::vector<ElementSpan> spans = elementSpans(regions);
  const std::vector<DiffRange>& ranges = diff.ranges();
  size_t span = 0;
  // Elements below this offset have been merged already, by an earlier range
  // touching the same element.
  uint64_t mergedUpTo = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const DiffRange& range = ranges[i];
    uint64_t end = range.offset + range.length;
    uint64_t at = range.offset;
    while (at < end) {
      while (span < spans.size() && spans[span].end <= at) ++span;
      if (span == spans.size() || spans[span].begin > at) {
        uint64_t stop = span == spans.size() ? end : std::min(end, spans[span].begin);
        std::memcpy(main + at, diff.dataOf(range) + (at - range.offset), stop - at);
        noteTouched(touched, at, stop - at);
        at = stop;
        continue;
      }
      const ElementSpan& region = spans[span];
      uint64_t elementBegin = at - (at - region.begin) % region.elementBytes;
      uint64_t elementEnd = elementBegin + region.elementBytes;
      if (elementBegin >= mergedUpTo) {
        uint8_t replica[8];
        replicaElement(baseline, diff, i, elementBegin, elementEnd, replica);
        mergeElement(region.op, region.type, main + elementBegin, baseline + elementBegin, replica);
        noteTouched(touched, elementBegin, region.elementBytes);
        mergedUpTo = elementEnd;
      }
      at = std::min(end, elementEnd);
    }
  }
}

}  // namespace

void mergeDiff(uint8_t* main, const uint8_t* baseline, const MemoryDiff& diff,
               const std::vector<MergeRegion>& regions) {
  mergeInto(main, baseline, diff, regions, nullptr);
}

void DiffMerger::merge(uint8_t* main, const uint8_t* baseline, const MemoryDiff& diff,
                       const std::vector<MergeRegion>& regions) {
  if (touched_.empty() || diff.empty() || diff.ranges().front().offset >= touched_.back().offset) {
    mergeInto(main, baseline, diff, regions, &touched_);
    return;
  }
  // noteTouched only coalesces forwards, so a diff reaching back is noted
  // apart and appended for touchedRanges() to sort.
  std::vector<ByteRange> touched;
  mergeInto(main, baseline, diff, regions, &touched);
  touched_.insert(touched_.end(), touched.begin(), touched.end());
  ascending_ = false;
}

const std::vector<ByteRange>& DiffMerger::touchedRanges() const {
  if (ascending_) return touched_;
  std::sort(touched_.begin(), touched_.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
  std::vector<ByteRange> coalesced;
  for (const ByteRange& range : touched_) noteTouched(&coalesced, range.offset, range.length);
  touched_ = std::move(coalesced);
  ascending_ = true;
  return touched_;
}

MemoryDiff DiffMerger::update(const uint8_t* main) const {
  MemoryDiff diff;
  for (const ByteRange& range : touchedRanges()) diff.append(range.offset, main + range.offset, range.length);
  return diff;
}

}  // namespace synergy::snapshot

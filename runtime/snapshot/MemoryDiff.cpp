//===- MemoryDiff.cpp - the bytes a replica changed, and where -------------===//
#include "snapshot/MemoryDiff.h"

#include <algorithm>
#include <cstring>

namespace synergy::snapshot {
namespace {

constexpr uint64_t kBlockBytes = 64;
constexpr uint64_t kHighBits = 0x8080808080808080ull;
constexpr uint64_t kLowSevenBits = 0x7f7f7f7f7f7f7f7full;

uint64_t loadWord(const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// The top bit of each byte of the result is set when that byte of `word` is
// non-zero (no carries cross bytes, so this is exact).
uint64_t nonZeroBytes(uint64_t word) {
  return (((word & kLowSevenBits) + kLowSevenBits) | word) & kHighBits;
}

// Collects the maximal runs of differing bytes as ranges of `diff`; the
// bytes are copied once all ranges are known, into storage sized exactly.
class RunCollector {
 public:
  explicit RunCollector(std::vector<DiffRange>& ranges) : ranges_(ranges) {}

  void add(uint64_t begin, uint64_t end) {
    if (!ranges_.empty() && ranges_.back().offset + ranges_.back().length == begin) {
      ranges_.back().length += end - begin;
      return;
    }
    uint64_t dataOffset = ranges_.empty() ? 0 : ranges_.back().dataOffset + ranges_.back().length;
    ranges_.push_back({begin, end - begin, dataOffset});
  }

 private:
  std::vector<DiffRange>& ranges_;
};

void diffBytes(const uint8_t* current, const uint8_t* baseline, uint64_t begin, uint64_t end,
               RunCollector& runs) {
  for (uint64_t at = begin; at < end; ++at)
    if (current[at] != baseline[at]) runs.add(at, at + 1);
}

// Adds the runs of differing bytes in the word at `at`, given the word's
// nonZeroBytes mask of differences, a run at a time.
void addWordRuns(uint64_t at, uint64_t differing, RunCollector& runs) {
  if (differing == kHighBits) {
    runs.add(at, at + 8);
    return;
  }
  while (differing) {
    unsigned first = unsigned(__builtin_ctzll(differing)) / 8;
    // The equal bytes above `first`; the run ends at the lowest of them.
    uint64_t equalAbove = ~differing & kHighBits & (~uint64_t(0) << (8 * first));
    unsigned end = equalAbove ? unsigned(__builtin_ctzll(equalAbove)) / 8 : 8;
    runs.add(at + first, at + end);
    differing &= end == 8 ? 0 : ~uint64_t(0) << (8 * end);
  }
}

// One 64-byte block: all eight words are compared at once (vectorisable);
// a block that is all equal or all different costs no per-word work.
void diffBlock(const uint8_t* current, const uint8_t* baseline, uint64_t at, RunCollector& runs) {
  constexpr unsigned kWords = kBlockBytes / 8;
  uint64_t differing[kWords];
  uint64_t any = 0, all = kHighBits;
  for (unsigned w = 0; w < kWords; ++w) {
    differing[w] = nonZeroBytes(loadWord(current + at + 8 * w) ^ loadWord(baseline + at + 8 * w));
    any |= differing[w];
    all &= differing[w];
  }
  if (any == 0) return;
  if (all == kHighBits) {
    runs.add(at, at + kBlockBytes);
    return;
  }
  for (unsigned w = 0; w < kWords; ++w)
    if (differing[w]) addWordRuns(at + 8 * w, differing[w], runs);
}

void diffSpan(const uint8_t* current, const uint8_t* baseline, uint64_t begin, uint64_t end,
              RunCollector& runs) {
  if (std::memcmp(current + begin, baseline + begin, end - begin) == 0) return;
  uint64_t at = begin;
  for (; at + kBlockBytes <= end; at += kBlockBytes) diffBlock(current, baseline, at, runs);
  for (; at + 8 <= end; at += 8)
    addWordRuns(at, nonZeroBytes(loadWord(current + at) ^ loadWord(baseline + at)), runs);
  diffBytes(current, baseline, at, end, runs);
}

void writeLeb128(std::vector<uint8_t>& out, uint64_t value) {
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out.push_back(value ? byte | 0x80 : byte);
  } while (value);
}

bool readLeb128(const uint8_t*& p, const uint8_t* end, uint64_t& value) {
  value = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    uint8_t byte = *p++;
    if (shift == 63 && byte > 1) return false;
    value |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

}  // namespace

void MemoryDiff::append(uint64_t offset, const uint8_t* bytes, uint64_t length) {
  if (length == 0) return;
  if (!ranges_.empty() && ranges_.back().offset + ranges_.back().length == offset)
    ranges_.back().length += length;
  else
    ranges_.push_back({offset, length, bytes_.size()});
  bytes_.insert(bytes_.end(), bytes, bytes + length);
}

void MemoryDiff::apply(uint8_t* target) const {
  for (const DiffRange& range : ranges_) std::memcpy(target + range.offset, dataOf(range), range.length);
}

std::vector<uint8_t> MemoryDiff::serialise() const {
  std::vector<uint8_t> out;
  out.reserve(bytes_.size() + ranges_.size() * 4 + 8);
  writeLeb128(out, ranges_.size());
  uint64_t previousEnd = 0;
  for (const DiffRange& range : ranges_) {
    writeLeb128(out, range.offset - previousEnd);
    writeLeb128(out, range.length);
    previousEnd = range.offset + range.length;
  }
  out.insert(out.end(), bytes_.begin(), bytes_.end());
  return out;
}

bool MemoryDiff::deserialise(const uint8_t* data, size_t size, MemoryDiff& out,
                             std::string& error) {
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  MemoryDiff diff;
  uint64_t count;
  if (!readLeb128(p, end, count)) {
    error = "diff: truncated range count";
    return false;
  }
  // Every range takes at least two header bytes and one data byte.
  if (count > size) {
    error = "diff: range count exceeds its size";
    return false;
  }
  diff.ranges_.reserve(count);
  uint64_t previousEnd = 0, dataBytes = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t gap, length;
    if (!readLeb128(p, end, gap) || !readLeb128(p, end, length)) {
      error = "diff: truncated range header";
      return false;
    }
    // Adjacent ranges would have been one range; a zero gap after the first
    // range therefore marks a malformed diff, as do overflowing offsets.
    if (length == 0 || (i > 0 && gap == 0) || gap > UINT64_MAX - previousEnd ||
        length > UINT64_MAX - previousEnd - gap || length > size) {
      error = "diff: invalid range";
      return false;
    }
    uint64_t offset = previousEnd + gap;
    diff.ranges_.push_back({offset, length, dataBytes});
    dataBytes += length;
    previousEnd = offset + length;
  }
  if (uint64_t(end - p) != dataBytes) {
    error = "diff: byte count does not match its ranges";
    return false;
  }
  diff.bytes_.assign(p, end);
  out = std::move(diff);
  return true;
}

MemoryDiff diffPages(const uint8_t* current, const uint8_t* baseline,
                     const std::vector<uint64_t>& pages, uint64_t pageSize) {
  MemoryDiff diff;
  diffPages(current, baseline, pages, pageSize, diff);
  return diff;
}

void diffPages(const uint8_t* current, const uint8_t* baseline, const std::vector<uint64_t>& pages,
               uint64_t pageSize, MemoryDiff& out) {
  out.clear();
  std::vector<uint64_t> sorted;
  const std::vector<uint64_t>* ordered = &pages;
  if (!std::is_sorted(pages.begin(), pages.end())) {
    sorted = pages;
    std::sort(sorted.begin(), sorted.end());
    ordered = &sorted;
  }
  RunCollector runs(out.ranges_);
  uint64_t previous = UINT64_MAX;
  for (uint64_t page : *ordered) {
    if (page == previous) continue;
    previous = page;
    diffSpan(current, baseline, page * pageSize, (page + 1) * pageSize, runs);
  }
  if (out.ranges_.empty()) return;
  out.bytes_.resize(out.ranges_.back().dataOffset + out.ranges_.back().length);
  for (const DiffRange& range : out.ranges_)
    std::memcpy(out.bytes_.data() + range.dataOffset, current + range.offset, range.length);
}

}  // namespace synergy::snapshot

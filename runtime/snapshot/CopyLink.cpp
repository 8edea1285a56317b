//===- CopyLink.cpp - keeping another host's copy of a memory current ------===//
#include "snapshot/CopyLink.h"

#include <algorithm>
#include <numeric>

#include "snapshot/DirtyTracker.h"
#include "util/LittleEndian.h"

namespace synergy::snapshot {
namespace {

// A range header in MemoryDiff's wire form takes at most two 10-byte
// LEB128 numbers, and the range count one more.
constexpr uint64_t kRangeHeaderBytes = 20;
constexpr uint64_t kCountBytes = 10;
// The smallest payload limit that still carries some bytes per chunk.
constexpr uint64_t kMinPayloadBytes = kCopyUpdateHeaderBytes + kCountBytes + kRangeHeaderBytes + 64;

// Grows `memory` to `pages`; false when it cannot.
bool growTo(LinearMemory& memory, uint64_t pages) {
  return pages <= memory.pages() || memory.grow(pages - memory.pages()) >= 0;
}

// Cuts `diff` into pieces whose wire form fits `budget` bytes each (a range
// that does not fit is split); always at least one piece.
std::vector<MemoryDiff> cutDiff(const MemoryDiff& diff, uint64_t budget) {
  std::vector<MemoryDiff> pieces(1);
  uint64_t used = kCountBytes;
  for (const DiffRange& range : diff.ranges()) {
    uint64_t done = 0;
    while (done < range.length) {
      if (used + kRangeHeaderBytes + 1 > budget) {
        pieces.emplace_back();
        used = kCountBytes;
      }
      uint64_t room = budget - used - kRangeHeaderBytes;
      uint64_t length = std::min(room, range.length - done);
      pieces.back().append(range.offset + done, diff.dataOf(range) + done, length);
      used += kRangeHeaderBytes + length;
      done += length;
    }
  }
  return pieces;
}

}  // namespace

bool parseCopyUpdate(const uint8_t* payload, size_t size, uint64_t maxPages, CopyUpdate& update,
                     std::string& error) {
  if (size < kCopyUpdateHeaderBytes) {
    error = "memory update: " + std::to_string(size) + " bytes, shorter than its header";
    return false;
  }
  CopyUpdate parsed;
  parsed.sequence = util::readLittleEndian(payload, 8);
  parsed.pages = util::readLittleEndian(payload + 8, 8);
  parsed.chunkIndex = uint32_t(util::readLittleEndian(payload + 16, 4));
  parsed.chunkCount = uint32_t(util::readLittleEndian(payload + 20, 4));
  if (parsed.sequence == 0) {
    error = "memory update: sequence 0";
    return false;
  }
  uint64_t limit = std::min(maxPages, kMaxWasm32Pages);
  if (parsed.pages > limit) {
    error = "memory update: " + std::to_string(parsed.pages) + " pages, over this memory's maximum of " +
            std::to_string(limit);
    return false;
  }
  if (parsed.chunkCount == 0 || parsed.chunkIndex >= parsed.chunkCount) {
    error = "memory update: chunk " + std::to_string(parsed.chunkIndex) + " of " +
            std::to_string(parsed.chunkCount);
    return false;
  }
  if (!MemoryDiff::deserialise(payload + kCopyUpdateHeaderBytes, size - kCopyUpdateHeaderBytes,
                               parsed.diff, error)) {
    error = "memory update: " + error;
    return false;
  }
  if (parsed.diff.end() > parsed.pages * kWasmPageSize) {
    error = "memory update: a range ends at byte " + std::to_string(parsed.diff.end()) +
            ", past the memory's " + std::to_string(parsed.pages * kWasmPageSize);
    return false;
  }
  update = std::move(parsed);
  return true;
}

bool CopyLink::start(uint64_t maxPages, std::string& error) {
  maxPages_ = maxPages;
  return view_.create(0, maxPages, error);
}

bool CopyLink::ship(const LinearMemory& memory, uint64_t maxPayloadBytes,
                    std::vector<std::vector<uint8_t>>& payloads, std::string& error) {
  std::vector<uint64_t> pages(memory.pages());
  std::iota(pages.begin(), pages.end(), uint64_t{0});
  return shipDiff(memory, pages, kWasmPageSize, maxPayloadBytes, payloads, error);
}

bool CopyLink::shipPages(const LinearMemory& memory, const std::vector<uint64_t>& hostPages,
                         uint64_t maxPayloadBytes, std::vector<std::vector<uint8_t>>& payloads,
                         std::string& error) {
  std::vector<uint64_t> pages;
  uint64_t limit = memory.sizeBytes() / kHostPageSize;
  for (uint64_t page : hostPages)
    if (page < limit) pages.push_back(page);
  return shipDiff(memory, pages, kHostPageSize, maxPayloadBytes, payloads, error);
}

bool CopyLink::shipDiff(const LinearMemory& memory, const std::vector<uint64_t>& pages,
                        uint64_t pageBytes, uint64_t maxPayloadBytes,
                        std::vector<std::vector<uint8_t>>& payloads, std::string& error) {
  if (maxPayloadBytes < kMinPayloadBytes) {
    error = "memory update: a payload limit of " + std::to_string(maxPayloadBytes) + " bytes";
    return false;
  }
  if (memory.pages() > maxPages_ || !growTo(view_, memory.pages())) {
    error = "memory update: cannot track " + std::to_string(memory.pages()) + " pages";
    return false;
  }
  diffPages(memory.base(), view_.base(), pages, pageBytes, scratch_);
  scratch_.apply(view_.base());
  shippedBytes_ += scratch_.changedBytes();

  std::vector<MemoryDiff> pieces = cutDiff(scratch_, maxPayloadBytes - kCopyUpdateHeaderBytes);
  ++sentSequence_;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::vector<uint8_t> body = pieces[i].serialise();
    std::vector<uint8_t> payload(kCopyUpdateHeaderBytes);
    util::writeLittleEndian(payload.data() + 0, sentSequence_, 8);
    util::writeLittleEndian(payload.data() + 8, memory.pages(), 8);
    util::writeLittleEndian(payload.data() + 16, uint32_t(i), 4);
    util::writeLittleEndian(payload.data() + 20, uint32_t(pieces.size()), 4);
    payload.insert(payload.end(), body.begin(), body.end());
    payloads.push_back(std::move(payload));
  }
  return true;
}

bool CopyLink::accept(const CopyUpdate& update, LinearMemory& memory, std::string& error) {
  bool starts = update.chunkIndex == 0;
  if (starts) {
    if (!updateComplete() || update.sequence != receivedSequence_ + 1) {
      error = "memory update: sequence " + std::to_string(update.sequence) + " where " +
              std::to_string(receivedSequence_ + 1) + " was due";
      return false;
    }
    // Wasm memories never shrink.
    if (update.pages < receivingPages_) {
      error = "memory update: " + std::to_string(update.pages) + " pages after " +
              std::to_string(receivingPages_);
      return false;
    }
  } else if (update.sequence != receivedSequence_ || update.chunkIndex != receivedChunks_ ||
             update.chunkCount != receivingChunks_ || update.pages != receivingPages_) {
    error = "memory update: chunk " + std::to_string(update.chunkIndex) + " of update " +
            std::to_string(update.sequence) + " out of order";
    return false;
  }
  if (update.pages > memory.pages() || update.pages > maxPages_) {
    error = "memory update: " + std::to_string(update.pages) + " pages, more than the copy's " +
            std::to_string(memory.pages());
    return false;
  }
  if (!growTo(view_, update.pages)) {
    error = "memory update: cannot track " + std::to_string(update.pages) + " pages";
    return false;
  }
  update.diff.apply(memory.base());
  update.diff.apply(view_.base());
  if (starts) {
    receivedSequence_ = update.sequence;
    receivingChunks_ = update.chunkCount;
    receivedChunks_ = 0;
    receivingPages_ = update.pages;
  }
  ++receivedChunks_;
  return true;
}

}  // namespace synergy::snapshot

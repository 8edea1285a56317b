//===- PartFileChunks.cpp - a part file carried to part 0 in chunks --------===//
//
// This file implements PartFileChunks.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/PartFileChunks.h"

#include <algorithm>

#include "checkpoint/PartFile.h"
#include "util/LittleEndian.h"

namespace synergy::checkpoint {

uint64_t maxSentPartFileBytes(size_t ranks) {
  constexpr uint64_t kMaxSectionBytes = (uint64_t(4) << 30) + (uint64_t(64) << 20);
  return maxPartFileHeadBytes(ranks) + uint64_t(ranks) * kMaxSectionBytes;
}

void forEachPartChunk(uint64_t sequence, const std::vector<std::string_view>& pieces,
                      const std::function<void(std::vector<uint8_t>)>& send) {
  uint64_t fileBytes = 0;
  for (std::string_view piece : pieces) fileBytes += piece.size();
  uint64_t offset = 0;
  std::vector<uint8_t> chunk;
  auto flush = [&] {
    send(std::move(chunk));
    chunk.clear();
  };
  for (std::string_view piece : pieces) {
    while (!piece.empty()) {
      if (chunk.empty()) {
        chunk.reserve(kPartChunkHeadBytes + std::min<uint64_t>(kMaxPartChunkBytes, fileBytes - offset));
        util::appendLittleEndian(chunk, sequence, 8);
        util::appendLittleEndian(chunk, offset, 8);
        util::appendLittleEndian(chunk, fileBytes, 8);
      }
      size_t take = std::min(piece.size(), kPartChunkHeadBytes + kMaxPartChunkBytes - chunk.size());
      chunk.insert(chunk.end(), piece.begin(), piece.begin() + long(take));
      piece.remove_prefix(take);
      offset += take;
      if (chunk.size() == kPartChunkHeadBytes + kMaxPartChunkBytes) flush();
    }
  }
  if (!chunk.empty()) flush();
}

bool PartFileAssembly::take(const std::vector<uint8_t>& payload, uint64_t expectedSequence,
                            size_t ranks, std::string& reason) {
  if (payload.size() <= kPartChunkHeadBytes ||
      payload.size() > kPartChunkHeadBytes + kMaxPartChunkBytes) {
    reason = "CheckpointPartData of " + std::to_string(payload.size()) + " bytes";
    return false;
  }
  uint64_t sequence = util::readLittleEndian(payload.data(), 8);
  uint64_t offset = util::readLittleEndian(payload.data() + 8, 8);
  uint64_t fileBytes = util::readLittleEndian(payload.data() + 16, 8);
  uint64_t length = payload.size() - kPartChunkHeadBytes;
  if (expectedSequence == 0 || sequence != expectedSequence) {
    reason = "CheckpointPartData of checkpoint " + std::to_string(sequence) +
             (expectedSequence ? ", not " + std::to_string(expectedSequence)
                               : ", when none was decided");
    return false;
  }
  if (offset == 0) {
    sequence_ = sequence;
    fileBytes_ = fileBytes;
    bytes_.clear();
  }
  if (sequence != sequence_ || offset != bytes_.size() || fileBytes != fileBytes_) {
    reason = "CheckpointPartData out of order (offset " + std::to_string(offset) + ", " +
             std::to_string(bytes_.size()) + " bytes received)";
    return false;
  }
  if (fileBytes > maxSentPartFileBytes(ranks) || length > fileBytes - offset) {
    reason = "CheckpointPartData past its part file's end (" + std::to_string(offset) + " + " +
             std::to_string(length) + " of " + std::to_string(fileBytes) + " bytes)";
    return false;
  }
  bytes_.append(reinterpret_cast<const char*>(payload.data()) + kPartChunkHeadBytes, length);
  return true;
}

std::optional<std::string> PartFileAssembly::takeWhole(uint64_t sequence) {
  if (sequence == 0 || sequence != sequence_ || bytes_.size() != fileBytes_ || fileBytes_ == 0)
    return std::nullopt;
  std::string whole = std::move(bytes_);
  bytes_.clear();
  sequence_ = fileBytes_ = 0;
  return whole;
}

}  // namespace synergy::checkpoint

//===- PartFileChunks.h - a part file carried to part 0 in chunks ----------===//
//
// When the hosts of a job have no checkpoint directory in common (each
// synergyd has its own --checkpoint-root), part 0 cannot read another
// part's file (PartFile.h) from the file system: each part sends its file
// to part 0 over the transport, in CheckpointPartData frames
// (transport/FrameTypes.h), right before its CheckpointWritten, and part 0
// assembles the checkpoint from the bytes it received.
//
// A chunk's payload (little-endian):
//   u64 sequence  u64 offset  u64 fileBytes  u8 bytes[]
// The chunks of one file come in order, on one connection, from offset 0
// to fileBytes, each with at least one byte. Part 0 takes nothing on
// trust: the sequence must be the checkpoint it decided on, the offset
// the bytes received so far, fileBytes the same in every chunk and no more
// than the part's ranks can fill, and the chunk must end inside the file.
// Memory grows with the bytes that actually came, never with the length
// a chunk claims. Once whole, the file's head and checksum are checked
// (decodePartFile) before any section is used.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace synergy::checkpoint {

inline constexpr size_t kPartChunkHeadBytes = 24;
// The most file bytes one chunk carries.
inline constexpr size_t kMaxPartChunkBytes = size_t(1) << 20;

// The largest part file a part of `ranks` ranks can send: its head and a
// 4 GiB memory with 64 MiB of the rest (globals, files, MPI objects) per
// rank.
uint64_t maxSentPartFileBytes(size_t ranks);

// Calls `send` with each chunk payload of the file made of `pieces` back
// to back, in order.
void forEachPartChunk(uint64_t sequence, const std::vector<std::string_view>& pieces,
                      const std::function<void(std::vector<uint8_t>)>& send);

// Part 0's assembly of one other part's file.
class PartFileAssembly {
 public:
  // Takes one chunk of checkpoint `expectedSequence` of a part of
  // `ranks` ranks; false with a one-line `reason` when it breaks a rule
  // above (the sender is then dropped).
  bool take(const std::vector<uint8_t>& payload, uint64_t expectedSequence, size_t ranks,
            std::string& reason);
  // The whole file of checkpoint `sequence`, given up; nullopt when no
  // such file was received whole.
  std::optional<std::string> takeWhole(uint64_t sequence);

 private:
  uint64_t sequence_ = 0;
  uint64_t fileBytes_ = 0;
  std::string bytes_;
};

}  // namespace synergy::checkpoint

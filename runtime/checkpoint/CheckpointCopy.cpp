//===- CheckpointCopy.cpp - a host's second copy of a checkpoint ----------===//
//
// This file implements CheckpointCopy.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointCopy.h"

#include <optional>

#include "checkpoint/CheckpointFile.h"
#include "checkpoint/DurableReplace.h"

namespace synergy::checkpoint {

bool storeCheckpointCopy(const std::string& directory, const std::string& file,
                         uint64_t sequence, std::string& error) {
  // Checked whole (its head, its CRC-32C, every section) before the copy
  // of the last checkpoint is replaced; the memory runs are looked at where
  // they lie, not copied.
  std::optional<CheckpointImage> image = decodeCheckpoint(file, error, true);
  if (!image) return false;
  if (image->sequence != sequence) {
    error = "it is checkpoint " + std::to_string(image->sequence) + ", not " +
            std::to_string(sequence);
    return false;
  }
  image.reset();
  // Recycled: the copy it replaces stays beside it as the spare until the
  // next copy, for a restart whose record still names it (the holder
  // answers before part 0 records the new one; readRecordedCheckpoint).
  ReplaceCounts counts;
  return replaceFileDurably(directory, kCheckpointFileName, {file}, true, counts, error);
}

}  // namespace synergy::checkpoint

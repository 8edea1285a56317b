//===- CheckpointCopy.h - a host's second copy of a checkpoint ------------===//
//
// When the hosts of a cluster job share no checkpoint directory (synergyd
// --checkpoint-root), a second host keeps a copy of each checkpoint part 0
// commits: part 1 of a job spread over hosts (CheckpointCopy frames), or
// the daemon of another host for a job that runs as one part
// (CheckpointMirror frames, cluster/JobHost.h). Both store what they
// received here, only once it has passed every check a resume makes of the
// file's bytes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>

namespace synergy::checkpoint {

// Checks `file` whole (its head, version, CRC-32C, every section) as
// checkpoint `sequence` and then replaces `directory`'s checkpoint file
// with it crash-safely, keeping the file it replaces as its spare
// (DurableReplace.h: the previous checkpoint, until the next copy), so that
// a restart from the checkpoint the cluster state still records finds it;
// false with a one-line `error` when it fails a check
// (nothing is written) or cannot be written. The mirror's store of a copy:
// part 1's (CheckpointCopy) and a daemon's (CheckpointMirror, cluster/JobHost.h).
bool storeCheckpointCopy(const std::string& directory, const std::string& file,
                         uint64_t sequence, std::string& error);

}  // namespace synergy::checkpoint

//===- CheckpointHolders.h - Which hosts hold a spread job's checkpoint ---===//
//
// The cluster state's record of a spread job's last checkpoint copied to a
// second host (synergyd --checkpoint-root, CheckpointAgreement.h):
//
//   synergy:job:<id>:checkpoint  hash sequence N, hosts "h2,h3" (the host
//                                ids that hold checkpoint N, part 0's
//                                first), outputs "B0,B1,..." (the bytes of
//                                stdout each part had written at N, in
//                                part order); it expires after a day
//
// Host ids, not part indices, because a restart places the job afresh: the
// client must find a surviving holder to run part 0 on, and the output
// offsets to cut the printed stdout back to the checkpoint, without the
// file, which lies only in the holders' directories.
//
// The record is read as hostile: a malformed one is refused whole
// (StateStoreError) and nothing in it reaches a terminal unfiltered.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/RedisConnection.h"

namespace synergy::cluster {

struct CheckpointHolders {
  uint64_t sequence = 0;                // >= 1
  std::vector<std::string> hostIds;     // 1 or 2 distinct valid host ids
  std::vector<uint64_t> stdoutBytes;    // one per part, at most kMaxJobRanks
};

// The host id of each part in `holderParts`, from the job's address table
// (synergy:job:<id>:ranks) and its rank -> part table `partOfRanks`.
// Throws StateStoreError when the table is malformed or lacks a part.
std::vector<std::string> partHostIds(RedisConnection& redis, uint64_t jobId,
                                     const std::vector<uint32_t>& partOfRanks,
                                     const std::vector<uint32_t>& holderParts);

// Replaces the record of job `jobId` and renews its expiry.
void recordCheckpointHolders(RedisConnection& redis, uint64_t jobId,
                             const CheckpointHolders& holders);
// Nullopt when the job has none; throws StateStoreError when it is
// malformed.
std::optional<CheckpointHolders> readCheckpointHolders(RedisConnection& redis, uint64_t jobId);
// Removes the record once no restart can use it (the client's job ended).
void deleteCheckpointHolders(RedisConnection& redis, uint64_t jobId);

}  // namespace synergy::cluster

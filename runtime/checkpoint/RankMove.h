//===- RankMove.h - one rank's state, taken from and put into a granule ----===//
//
// The per-rank halves of a checkpoint, apart from the file around them: a
// live move (issue 22) encodes a departing rank's state exactly as a
// checkpoint records it (its memory, globals, WASI files and offsets and
// MPI objects: encodeRankSection), followed by its own progress on each
// communicator it holds (collectives entered and finished, communicators
// made: little-endian entries of context u32 and three u64, then their
// count u32 and the tag "LMP1") and a CRC-32C of all that, and restores it into a fresh instance of the module; `--resume` restores
// each rank of a checkpoint file through the same restoreRank. The bytes
// a rank arrives with are hostile: decodeDepartingRank checks them as
// decodeCheckpoint checks a file's section, and its checksum, before
// anything is applied. Nothing here changes the checkpoint file's format.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/CheckpointFile.h"
#include "checkpoint/MpiObjectRecord.h"

namespace synergy::granule {
class Granule;
}

namespace synergy::checkpoint {

// The suspended rank's state (its granule unwound at a barrier control
// point, its memory and globals still its own). `grantCount`: the job's
// --dir grants. `notRecorded` says which of its descriptors a checkpoint
// does not record (the move must then not be taken); empty when none.
std::string encodeDepartingRank(uint32_t worldRank, granule::Granule& granule,
                                size_t grantCount, std::string& notRecorded);
// encodeDepartingRank's tail: a rank's section (encodeRankSection) with its
// progress record and the checksum after it.
std::string sealDepartingRank(std::string section,
                              const std::vector<CommProgressRecord>& progress);
// encodeDepartingRank's bytes checked and decoded, for rank `worldRank` of
// a job of `rankCount` ranks with `grantCount` grants; nullopt with a
// one-line `error`. Its memory runs are views into `bytes` (copied once,
// by restoreRank), which must outlive the image.
std::optional<RankImage> decodeDepartingRank(std::string_view bytes, uint32_t worldRank,
                                             uint32_t rankCount, uint32_t grantCount,
                                             std::string& error);
// Whether a live move's `image.progress` names each communicator the rank
// holds once, by context, and no other, with no more collectives finished
// than entered; false with a one-line `error`. decodeDepartingRank checks.
bool checkLiveProgress(const RankImage& image, std::string& error);
// Puts `image` into `granule`, a fresh instance of the module it was
// taken from (instantiated, no guest code run): memory, globals, open
// files, MPI objects (communicators taken from or added to
// `communicators` by context), and starts its rewind into the collective
// it was suspended in. False with a one-line `error`.
bool restoreRank(const RankImage& image, granule::Granule& granule,
                 ResumedCommunicators& communicators, std::string& error);
// Adds the communicators `rank` holds handles to, by context: the live
// ones a rank arriving in this process shares with the others.
void addLiveCommunicators(const mpi::RankState& rank, ResumedCommunicators& communicators);

}  // namespace synergy::checkpoint

//===- RankMove.h - one rank's state, taken from and put into a granule ----===//
//
// The per-rank halves of a checkpoint, apart from the file around them: a
// live move (issue 22) encodes a departing rank's state exactly as a
// checkpoint records it (its memory, globals, WASI files and offsets and
// MPI objects: encodeRankSection), followed by the section's CRC-32C, and
// restores it into a fresh instance of the module; `--resume` restores
// each rank of a checkpoint file through the same restoreRank. The bytes
// a rank arrives with are hostile: decodeDepartingRank checks them as
// decodeCheckpoint checks a file's section, and its checksum, before
// anything is applied. Nothing here changes the checkpoint file's format.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "checkpoint/CheckpointFile.h"
#include "checkpoint/MpiObjectRecord.h"

namespace synergy::granule {
class Granule;
}

namespace synergy::checkpoint {

// A departing rank's bytes until it arrives: the source's own encoding
// (`own`), or, at a live move's target, the section that landed from the
// source, in the buffer the transport placed it in (`keeper` keeps it
// mapped; not copied), with the CRC-32C computed as it landed.
struct DepartingBytes {
  std::string own;
  std::shared_ptr<const void> keeper;
  std::string_view landed;
  std::optional<uint32_t> landedCrc;

  std::string_view bytes() const { return keeper ? landed : std::string_view(own); }
  bool empty() const { return bytes().empty(); }
  void clear() { *this = DepartingBytes{}; }
};

// The suspended rank's state (its granule unwound at a barrier control
// point, its memory and globals still its own). `grantCount`: the job's
// --dir grants. `notRecorded` says which of its descriptors a checkpoint
// does not record (the move must then not be taken); empty when none.
std::string encodeDepartingRank(uint32_t worldRank, granule::Granule& granule,
                                size_t grantCount, std::string& notRecorded);
// encodeDepartingRank's bytes checked and decoded, for rank `worldRank` of
// a job of `rankCount` ranks with `grantCount` grants; nullopt with a
// one-line `error`. Its memory runs are views into `bytes` (copied once,
// by restoreRank), which must outlive the image. `landedCrc`: the CRC-32C
// this process computed already over the bytes before their last four, as
// they landed (RankSectionTransfer checks each chunk as it arrives), into
// memory no one else writes since: the checksum the bytes state must equal
// it, and the 64 MiB of a large rank are not read a second (and third)
// time to compute it again. Every record is checked either way.
std::optional<RankImage> decodeDepartingRank(std::string_view bytes, uint32_t worldRank,
                                             uint32_t rankCount, uint32_t grantCount,
                                             std::string& error,
                                             std::optional<uint32_t> landedCrc = std::nullopt);
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

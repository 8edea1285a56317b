//===- RankMove.h - one rank's state, taken from and put into a granule ----===//
//
// The per-rank halves of a checkpoint, apart from the file around them: a
// live move (issue 22) encodes a departing rank's state exactly as a
// checkpoint records it (its memory, globals, WASI files and offsets and
// MPI objects: encodeRankSection), followed by the windows it holds
// (CarriedWindowRecord entries: 52 bytes, each member's size and
// displacement unit as two u64, the name; then their bytes u32, count u32
// and the tag "LMW1"; the other members stop addressing its memory as it
// departs and address it again where it arrives), the requests it holds (a
// completed one not yet freed, with its status; a receive posted and not
// matched, which leaves its source's mailbox and is posted again where it
// arrives: CarriedRequestRecord entries of 52 bytes, then their count u32
// and the tag "LMR2"; version 1, "LMR1", had no windows record before it
// and is refused), its own progress on each
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

#include <memory>
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

// A departing rank's bytes until it arrives: the source's own encoding
// (`own`), or, at a live move's target, the section that landed from the
// source, in the buffer the transport placed it in (`keeper` keeps it
// mapped; not copied), with the CRC-32C computed as it landed.
struct DepartingBytes {
  std::shared_ptr<const void> keeper;  // keeps `landed` where it lies
  std::string_view landed;
  // The CRC-32C of all but the last four bytes, computed as they landed
  // from another part; none for bytes encoded here.
  std::optional<uint32_t> landedCrc;
  // The bytes lie in a private anonymous mapping that only `keeper` holds:
  // restoreRank may take its pages.
  bool pagesMayMove = false;

  std::string_view bytes() const { return landed; }
  bool empty() const { return landed.empty(); }
  void clear() { *this = DepartingBytes{}; }
};

// The suspended rank's state (its granule unwound at a barrier control
// point, its memory and globals still its own), in a mapping of its own.
// The pages of its largest memory run are moved there rather than copied
// (the instance's memory is left empty there: the granule must not run
// again; its rank arrives in a fresh instance). `grantCount`: the job's
// --dir grants. `notRecorded` says which of its descriptors a checkpoint
// does not record, or why the state could not be mapped (the move must
// then not be taken, and nothing was encoded or moved); empty when none.
DepartingBytes encodeDepartingRank(uint32_t worldRank, granule::Granule& granule,
                                   size_t grantCount, std::string& notRecorded);
// A rank's section (encodeRankSection) with its requests and progress
// records and the checksum after them, in one string, as
// encodeDepartingRank lays them out (tests build departing bytes with it).
std::string sealDepartingRank(std::string section,
                              const std::vector<CommProgressRecord>& progress,
                              const std::vector<CarriedRequestRecord>& requests = {},
                              const std::vector<CarriedWindowRecord>& windows = {});
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
// Whether a live move's `image.progress` names each communicator the rank
// holds once, by context, and no other, with no more collectives finished
// than entered; false with a one-line `error`. decodeDepartingRank checks.
bool checkLiveProgress(const RankImage& image, std::string& error);
// Puts `image` into `granule`, a fresh instance of the module it was
// taken from (instantiated, no guest code run): memory, globals, open
// files, MPI objects (communicators taken from or added to
// `communicators` by context), and starts its rewind into the collective
// it was suspended in. False with a one-line `error`. `takeRunPages`: the
// image's runs are views into a private anonymous mapping that no one
// reads after this (DepartingBytes::pagesMayMove): the pages of large runs
// are moved into the memory rather than copied into fresh ones, leaving
// that mapping's pages empty.
bool restoreRank(const RankImage& image, granule::Granule& granule,
                 ResumedCommunicators& communicators, std::string& error,
                 bool takeRunPages = false);
// Adds the communicators `rank` holds handles to, by context: the live
// ones a rank arriving in this process shares with the others.
void addLiveCommunicators(const mpi::RankState& rank, ResumedCommunicators& communicators);

}  // namespace synergy::checkpoint

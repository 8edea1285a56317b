//===- PartFile.h - one host's share of a checkpoint of a spread job -------===//
//
// A part of a job spread over hosts writes its ranks' sections of
// checkpoint N to "checkpoint.syck.partP" in the checkpoint directory,
// over its file of checkpoint N - 2 (DurableReplace.h: only what changed);
// part 0 reads every other part's file and puts the sections into the one
// checkpoint file (CheckpointCoordinator.h). The file is read back from a
// directory other hosts write to, so part 0 takes nothing from it on
// trust: it must be this checkpoint's and this part's, its length must be
// what its header says, and its checksum must match; the sections inside
// are checked field by field when the checkpoint is resumed
// (CheckpointFile.h). Part 0 decodes the head alone and checks the
// checksum from the sections' CRC-32Cs, taken while it copies them into
// the checkpoint file, before that file is committed: the sections are
// read once.
//
// Layout (little-endian):
//   "SYNCKPRT"  u32 version  u64 sequence  u32 part
//   u32 rankCount  rankCount x { u32 worldRank  u64 sectionBytes }
//   u32 unresumableBytes  u8[]
//   u32 checksum (CRC-32C of everything before it and the sections)
//   the ranks' sections (CheckpointFile.h), back to back, in rank order
//
// A part holds any set of ranks, not only a run of consecutive ones (a
// rank moved live leaves a gap), so each rank's section is listed with its
// length and part 0 puts every section in its place in world rank order.
// Version 3 added that list (version 2 named a first rank and a count,
// version 1 had a SHA-256 for the checksum, see CheckpointFile.h's version
// 7); a file of another version is refused.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace synergy::checkpoint {

struct PartSections {
  uint64_t sequence = 0;
  uint32_t part = 0;
  std::vector<uint32_t> ranks;  // the world ranks it holds, increasing
  std::string unresumable;      // this part's reason, as JobRecord::unresumable
  // Each rank's section, in the order of `ranks`: views of the bytes
  // decoded, which must outlive them; ignored by encodePartFileHead.
  std::vector<std::string_view> sections;
};

// The part file's head, what comes before the sections.
struct PartFileHead {
  PartSections part;                  // without the sections
  std::vector<uint64_t> sectionBytes;  // in the order of part.ranks
  uint64_t headBytes = 0;              // where the first section starts
  // The checksum field, and the CRC-32C of the head before it, which
  // the sections' CRC-32C continues.
  uint32_t checksum = 0;
  uint32_t headChecksum = 0;

  // Whether the sections, back to back, with this CRC-32C, are the ones
  // the checksum was taken over.
  bool sectionsMatch(uint32_t sectionsChecksum) const;
};

std::string partFileName(uint32_t part);
// The part file's bytes before the sections, its checksum covering
// sections of `sectionBytes` (one per rank of `part.ranks`, in order)
// whose CRC-32C, back to back, is `sectionsChecksum`: the file is the head
// followed by them, which a writer so puts on disk without copying its
// ranks' memory again. Its length does not depend on the checksum.
std::string encodePartFileHead(const PartSections& part, const std::vector<uint64_t>& sectionBytes,
                               uint32_t sectionsChecksum);
// The most bytes a head holding `ranks` ranks can take.
uint64_t maxPartFileHeadBytes(size_t ranks);
// Checks the head at the start of `bytes`, of a file `fileBytes` long,
// against what part 0 expects of it (its checkpoint, part and ranks) and
// the file's length; nullopt with a one-line `error` otherwise.
std::optional<PartFileHead> decodePartFileHead(std::string_view bytes, uint64_t fileBytes,
                                               const PartSections& expected, std::string& error);
// The same for a whole file in memory, its checksum checked too. The
// result's sections are views of `bytes`.
std::optional<PartSections> decodePartFile(std::string_view bytes, const PartSections& expected,
                                           std::string& error);

}  // namespace synergy::checkpoint

//===- PartFile.cpp - one host's share of a checkpoint of a spread job -----===//
//
// This file implements PartFile.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/PartFile.h"

#include <array>
#include <cstring>

#include "checkpoint/CheckpointFile.h"
#include "checkpoint/FieldCoding.h"
#include "util/Crc32c.h"

namespace synergy::checkpoint {

namespace {

constexpr char kPartMagic[8] = {'S', 'Y', 'N', 'C', 'K', 'P', 'R', 'T'};
constexpr uint32_t kPartVersion = 2;

template <typename Sections>
uint32_t checksumOf(std::string_view head, const Sections& sections) {
  util::Crc32c checksum;
  checksum.update(head);
  for (std::string_view section : sections) checksum.update(section);
  return checksum.value();
}

}  // namespace

std::string partFileName(uint64_t sequence, uint32_t part) {
  return std::string(kCheckpointFileName) + "." + std::to_string(sequence) + ".part" +
         std::to_string(part);
}

std::string encodePartFileHead(const PartSections& part, const std::vector<std::string>& sections) {
  uint64_t sectionBytes = 0;
  for (const std::string& section : sections) sectionBytes += section.size();
  std::string out(kPartMagic, sizeof kPartMagic);
  put(out, kPartVersion);
  put(out, part.sequence);
  put(out, part.part);
  put(out, part.firstRank);
  put(out, part.rankCount);
  putText(out, part.unresumable);
  put(out, sectionBytes);
  put(out, checksumOf(out, sections));
  return out;
}

std::optional<PartSections> decodePartFile(std::string_view bytes, const PartSections& expected,
                                           std::string& error) {
  if (bytes.size() < sizeof kPartMagic || std::memcmp(bytes.data(), kPartMagic, sizeof kPartMagic)) {
    error = "not a part of a Synergy checkpoint";
    return std::nullopt;
  }
  FieldReader reader(bytes.substr(sizeof kPartMagic));
  PartSections part;
  uint32_t version = 0;
  uint64_t sectionBytes = 0;
  uint64_t budget = kMaxJobTextBytes;
  if (!reader.read(version) || !reader.read(part.sequence) || !reader.read(part.part) ||
      !reader.read(part.firstRank) || !reader.read(part.rankCount) ||
      !readText(reader, budget, part.unresumable) || !reader.read(sectionBytes)) {
    error = "the part file is truncated";
    return std::nullopt;
  }
  if (version != kPartVersion || part.sequence != expected.sequence ||
      part.part != expected.part || part.firstRank != expected.firstRank ||
      part.rankCount != expected.rankCount) {
    error = "the part file is not part " + std::to_string(expected.part) + " of checkpoint " +
            std::to_string(expected.sequence);
    return std::nullopt;
  }
  size_t headBytes = bytes.size() - reader.left();
  uint32_t checksum = 0;
  if (!reader.read(checksum) || reader.left() != sectionBytes) {
    error = "the part file's length is not the one its header gives";
    return std::nullopt;
  }
  std::string_view sections = bytes.substr(bytes.size() - sectionBytes);
  if (checksumOf(bytes.substr(0, headBytes), std::array<std::string_view, 1>{sections}) !=
      checksum) {
    error = "the part file's checksum does not match (corrupt)";
    return std::nullopt;
  }
  part.sections = sections;
  return part;
}

}  // namespace synergy::checkpoint

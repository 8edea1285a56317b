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
constexpr uint32_t kPartVersion = 3;

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
  std::string out(kPartMagic, sizeof kPartMagic);
  put(out, kPartVersion);
  put(out, part.sequence);
  put(out, part.part);
  put(out, uint32_t(part.ranks.size()));
  for (size_t i = 0; i < part.ranks.size(); ++i) {
    put(out, part.ranks[i]);
    put(out, uint64_t(sections[i].size()));
  }
  putText(out, part.unresumable);
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
  uint32_t version = 0, rankCount = 0;
  if (!reader.read(version) || !reader.read(part.sequence) || !reader.read(part.part) ||
      !reader.read(rankCount)) {
    error = "the part file is truncated";
    return std::nullopt;
  }
  auto notExpected = [&] {
    error = "the part file is not part " + std::to_string(expected.part) + " of checkpoint " +
            std::to_string(expected.sequence);
    return std::nullopt;
  };
  if (version != kPartVersion || part.sequence != expected.sequence ||
      part.part != expected.part || rankCount != expected.ranks.size())
    return notExpected();
  // Each length is checked against what is left of the file as it is read,
  // so their sum cannot wrap.
  std::vector<uint64_t> sectionBytes(rankCount);
  uint64_t sectionsTotal = 0;
  for (uint32_t i = 0; i < rankCount; ++i) {
    uint32_t worldRank = 0;
    if (!reader.read(worldRank) || !reader.read(sectionBytes[i])) {
      error = "the part file is truncated";
      return std::nullopt;
    }
    if (worldRank != expected.ranks[i]) return notExpected();
    if (sectionBytes[i] > bytes.size() - sectionsTotal) {
      error = "the part file's length is not the one its header gives";
      return std::nullopt;
    }
    sectionsTotal += sectionBytes[i];
  }
  part.ranks = expected.ranks;
  uint64_t budget = kMaxJobTextBytes;
  if (!readText(reader, budget, part.unresumable)) {
    error = "the part file is truncated";
    return std::nullopt;
  }
  size_t headBytes = bytes.size() - reader.left();
  uint32_t checksum = 0;
  if (!reader.read(checksum) || reader.left() != sectionsTotal) {
    error = "the part file's length is not the one its header gives";
    return std::nullopt;
  }
  std::string_view sections = bytes.substr(bytes.size() - sectionsTotal);
  if (checksumOf(bytes.substr(0, headBytes), std::array<std::string_view, 1>{sections}) !=
      checksum) {
    error = "the part file's checksum does not match (corrupt)";
    return std::nullopt;
  }
  for (uint64_t offset = 0, i = 0; i < rankCount; offset += sectionBytes[i], ++i)
    part.sections.push_back(sections.substr(offset, sectionBytes[i]));
  return part;
}

}  // namespace synergy::checkpoint

//===- PartFile.cpp - one host's share of a checkpoint of a spread job -----===//
//
// This file implements PartFile.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/PartFile.h"

#include <cstring>

#include "checkpoint/CheckpointFile.h"
#include "checkpoint/FieldCoding.h"
#include "util/Crc32c.h"

namespace synergy::checkpoint {

namespace {

constexpr char kPartMagic[8] = {'S', 'Y', 'N', 'C', 'K', 'P', 'R', 'T'};
constexpr uint32_t kPartVersion = 3;

}  // namespace

bool PartFileHead::sectionsMatch(uint32_t sectionsChecksum) const {
  uint64_t sectionsTotal = 0;
  for (uint64_t bytes : sectionBytes) sectionsTotal += bytes;
  return util::Crc32c::combine(headChecksum, sectionsChecksum, sectionsTotal) == checksum;
}

std::string partFileName(uint32_t part) {
  return std::string(kCheckpointFileName) + ".part" + std::to_string(part);
}

std::string encodePartFileHead(const PartSections& part, const std::vector<uint64_t>& sectionBytes,
                               uint32_t sectionsChecksum) {
  std::string out(kPartMagic, sizeof kPartMagic);
  put(out, kPartVersion);
  put(out, part.sequence);
  put(out, part.part);
  put(out, uint32_t(part.ranks.size()));
  uint64_t sectionsTotal = 0;
  for (size_t i = 0; i < part.ranks.size(); ++i) {
    put(out, part.ranks[i]);
    put(out, sectionBytes[i]);
    sectionsTotal += sectionBytes[i];
  }
  putText(out, part.unresumable);
  util::Crc32c head;
  head.update(out);
  put(out, util::Crc32c::combine(head.value(), sectionsChecksum, sectionsTotal));
  return out;
}

uint64_t maxPartFileHeadBytes(size_t ranks) {
  // Magic, version, sequence, part, count; per rank its number and length;
  // the reason's length and bytes; the checksum.
  return sizeof kPartMagic + 4 + 8 + 4 + 4 + uint64_t(ranks) * 12 + 4 + kMaxJobTextBytes + 4;
}

std::optional<PartFileHead> decodePartFileHead(std::string_view bytes, uint64_t fileBytes,
                                               const PartSections& expected, std::string& error) {
  if (bytes.size() < sizeof kPartMagic || std::memcmp(bytes.data(), kPartMagic, sizeof kPartMagic)) {
    error = "not a part of a Synergy checkpoint";
    return std::nullopt;
  }
  FieldReader reader(bytes.substr(sizeof kPartMagic));
  PartFileHead head;
  PartSections& part = head.part;
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
  // Each length is checked against the file's length as it is read, so
  // their sum cannot wrap.
  head.sectionBytes.resize(rankCount);
  uint64_t sectionsTotal = 0;
  for (uint32_t i = 0; i < rankCount; ++i) {
    uint32_t worldRank = 0;
    if (!reader.read(worldRank) || !reader.read(head.sectionBytes[i])) {
      error = "the part file is truncated";
      return std::nullopt;
    }
    if (worldRank != expected.ranks[i]) return notExpected();
    if (head.sectionBytes[i] > fileBytes - sectionsTotal) {
      error = "the part file's length is not the one its header gives";
      return std::nullopt;
    }
    sectionsTotal += head.sectionBytes[i];
  }
  part.ranks = expected.ranks;
  uint64_t budget = kMaxJobTextBytes;
  if (!readText(reader, budget, part.unresumable)) {
    error = "the part file is truncated";
    return std::nullopt;
  }
  size_t checksummed = bytes.size() - reader.left();
  if (!reader.read(head.checksum)) {
    error = "the part file is truncated";
    return std::nullopt;
  }
  head.headBytes = checksummed + sizeof head.checksum;
  if (fileBytes < head.headBytes || fileBytes - head.headBytes != sectionsTotal) {
    error = "the part file's length is not the one its header gives";
    return std::nullopt;
  }
  util::Crc32c headChecksum;
  headChecksum.update(bytes.substr(0, checksummed));
  head.headChecksum = headChecksum.value();
  return head;
}

std::optional<PartSections> decodePartFile(std::string_view bytes, const PartSections& expected,
                                           std::string& error) {
  std::optional<PartFileHead> head = decodePartFileHead(bytes, bytes.size(), expected, error);
  if (!head) return std::nullopt;
  std::string_view sections = bytes.substr(head->headBytes);
  util::Crc32c sectionsChecksum;
  sectionsChecksum.update(sections);
  if (!head->sectionsMatch(sectionsChecksum.value())) {
    error = "the part file's checksum does not match (corrupt)";
    return std::nullopt;
  }
  PartSections part = std::move(head->part);
  for (uint64_t offset = 0, i = 0; i < head->sectionBytes.size(); offset += head->sectionBytes[i], ++i)
    part.sections.push_back(sections.substr(offset, head->sectionBytes[i]));
  return part;
}

}  // namespace synergy::checkpoint

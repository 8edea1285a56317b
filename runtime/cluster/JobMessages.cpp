//===- JobMessages.cpp - The payload of a RunJob frame ---------------------===//
//
// This file implements the RunJob encoding of JobMessages.h with a bounds-
// checked reader: every field read first checks that enough bytes remain.
//
//===----------------------------------------------------------------------===//
#include "cluster/JobMessages.h"

#include <cstring>

#include "util/LittleEndian.h"
#include "util/PrintableText.h"

namespace synergy::cluster {

namespace {

void appendString(std::vector<uint8_t>& out, const std::string& text) {
  util::appendLittleEndian(out, text.size(), 4);
  out.insert(out.end(), text.begin(), text.end());
}

void appendStrings(std::vector<uint8_t>& out, const std::vector<std::string>& strings) {
  util::appendLittleEndian(out, strings.size(), 4);
  for (const std::string& text : strings) appendString(out, text);
}

// Reads fields front to back; any read past the end fails and sticks.
class PayloadReader {
 public:
  explicit PayloadReader(const std::vector<uint8_t>& payload) : payload_(payload) {}

  bool integer(uint64_t& value, size_t bytes) {
    if (payload_.size() - offset_ < bytes) return false;
    value = 0;
    for (size_t i = 0; i < bytes; ++i) value |= uint64_t(payload_[offset_ + i]) << (8 * i);
    offset_ += bytes;
    return true;
  }

  bool bytes(uint8_t* out, size_t count) {
    if (payload_.size() - offset_ < count) return false;
    std::memcpy(out, payload_.data() + offset_, count);
    offset_ += count;
    return true;
  }

  // A string of at most `limit` bytes without NUL.
  bool string(std::string& out, uint64_t limit, const char* what, std::string& reason) {
    uint64_t length = 0;
    if (!integer(length, 4) || payload_.size() - offset_ < length) return truncated(reason);
    if (length > limit) {
      reason = std::string("RunJob has a ") + what + " of " + std::to_string(length) +
               " bytes (at most " + std::to_string(limit) + ")";
      return false;
    }
    out.assign(reinterpret_cast<const char*>(payload_.data() + offset_), length);
    offset_ += length;
    if (out.find('\0') != std::string::npos) {
      reason = std::string("RunJob has a NUL byte in a ") + what;
      return false;
    }
    return true;
  }

  bool strings(std::vector<std::string>& out, const char* what, std::string& reason) {
    uint64_t count = 0;
    if (!integer(count, 4)) return truncated(reason);
    if (count > kMaxJobStrings) {
      reason = std::string("RunJob has ") + std::to_string(count) + " " + what + " (at most " +
               std::to_string(kMaxJobStrings) + ")";
      return false;
    }
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t length = 0;
      if (!integer(length, 4) || payload_.size() - offset_ < length) return truncated(reason);
      std::string text(reinterpret_cast<const char*>(payload_.data() + offset_), length);
      offset_ += length;
      if (text.find('\0') != std::string::npos) {
        reason = std::string("RunJob has a NUL byte in its ") + what;
        return false;
      }
      out.push_back(std::move(text));
    }
    return true;
  }

  bool atEnd() const { return offset_ == payload_.size(); }

  static bool truncated(std::string& reason) {
    reason = "RunJob payload is truncated";
    return false;
  }

 private:
  const std::vector<uint8_t>& payload_;
  size_t offset_ = 0;
};

// The grants section (flags bit 1). Each path is checked here only for its
// form; the host checks where it leads (JobGrants.h).
bool decodeGrants(PayloadReader& reader, RunJobRequest& request, std::string& reason) {
  uint64_t count = 0;
  if (!reader.integer(count, 4)) return PayloadReader::truncated(reason);
  if (count == 0 || count > kMaxJobGrants) {
    reason = "RunJob has " + std::to_string(count) + " --dir grants (1 to " +
             std::to_string(kMaxJobGrants) + ")";
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    JobGrant grant;
    uint64_t readOnly = 0;
    if (!reader.string(grant.hostPath, kMaxJobPathBytes, "--dir host path", reason) ||
        !reader.string(grant.guestPath, kMaxJobPathBytes, "--dir guest path", reason))
      return false;
    if (!reader.integer(readOnly, 1)) return PayloadReader::truncated(reason);
    // The host hands each grant on as HOST:GUEST:ACCESS (sandbox/Grant.h).
    if (grant.hostPath.empty() || grant.guestPath.empty() || readOnly > 1 ||
        grant.hostPath.find(':') != std::string::npos ||
        grant.guestPath.find(':') != std::string::npos) {
      reason = "RunJob has a malformed --dir grant";
      return false;
    }
    grant.readOnly = readOnly == 1;
    request.grants.push_back(std::move(grant));
  }
  if (!reader.string(request.workingDirectory, kMaxJobPathBytes, "working directory", reason))
    return false;
  if (request.workingDirectory.empty() || request.workingDirectory.front() != '/') {
    reason = "RunJob's working directory is not an absolute path";
    return false;
  }
  return true;
}

// The checkpoint section (flags bit 2): the host checks where the
// directory leads (JobHost.h).
bool decodeCheckpointing(PayloadReader& reader, RunJobRequest& request, std::string& reason) {
  uint64_t interval = 0, resume = 0;
  if (!reader.integer(interval, 8)) return PayloadReader::truncated(reason);
  if (!reader.string(request.checkpointDirectory, kMaxJobPathBytes, "checkpoint directory",
                     reason) ||
      !reader.string(request.checkpointProgram, kMaxJobPathBytes, "checkpointed program", reason))
    return false;
  if (!reader.integer(resume, 1)) return PayloadReader::truncated(reason);
  request.resumeSequence = 0;
  if (resume == 1 && !reader.integer(request.resumeSequence, 8))
    return PayloadReader::truncated(reason);
  if (interval > kMaxCheckpointIntervalMicroseconds || resume > 1 ||
      request.resumeSequence > (UINT64_MAX >> 1) ||
      request.checkpointDirectory.empty() || request.checkpointDirectory.front() != '/' ||
      request.checkpointProgram.empty()) {
    reason = "RunJob has a malformed checkpoint section";
    return false;
  }
  request.checkpointIntervalMicroseconds = interval;
  request.resume = resume == 1;
  return true;
}

}  // namespace

std::vector<uint8_t> encodeRunJob(const RunJobRequest& request) {
  std::vector<uint8_t> out;
  util::appendLittleEndian(out, request.jobId, 8);
  util::appendLittleEndian(out, request.ranks, 4);
  bool checkpoints = !request.checkpointDirectory.empty();
  out.push_back(uint8_t((request.tagOutput ? 1 : 0) | (request.grants.empty() ? 0 : 2) |
                        (checkpoints ? 4 : 0) | (request.rankParts.empty() ? 0 : 8)));
  out.insert(out.end(), request.moduleHash.begin(), request.moduleHash.end());
  appendStrings(out, request.arguments);
  appendStrings(out, request.environment);
  util::appendLittleEndian(out, request.partRanks.size(), 4);
  util::appendLittleEndian(out, request.partIndex, 4);
  for (uint32_t count : request.partRanks) util::appendLittleEndian(out, count, 4);
  for (uint32_t part : request.rankParts) util::appendLittleEndian(out, part, 4);
  if (!request.grants.empty()) {
    util::appendLittleEndian(out, request.grants.size(), 4);
    for (const JobGrant& grant : request.grants) {
      appendString(out, grant.hostPath);
      appendString(out, grant.guestPath);
      out.push_back(grant.readOnly ? 1 : 0);
    }
    appendString(out, request.workingDirectory);
  }
  if (checkpoints) {
    util::appendLittleEndian(out, request.checkpointIntervalMicroseconds, 8);
    appendString(out, request.checkpointDirectory);
    appendString(out, request.checkpointProgram);
    out.push_back(request.resume ? 1 : 0);
    if (request.resume) util::appendLittleEndian(out, request.resumeSequence, 8);
  }
  return out;
}

bool decodeRunJob(const std::vector<uint8_t>& payload, RunJobRequest& request,
                  std::string& reason) {
  PayloadReader reader(payload);
  uint64_t ranks = 0, flags = 0;
  if (!reader.integer(request.jobId, 8) || !reader.integer(ranks, 4) ||
      !reader.integer(flags, 1) || !reader.bytes(request.moduleHash.data(), 32))
    return PayloadReader::truncated(reason);
  if (ranks == 0 || ranks > kMaxJobRanks) {
    reason = "RunJob asks for " + std::to_string(ranks) + " ranks (1 to " +
             std::to_string(kMaxJobRanks) + ")";
    return false;
  }
  if (flags > 15) {
    reason = "RunJob has unknown flags " + std::to_string(flags);
    return false;
  }
  request.ranks = uint32_t(ranks);
  request.tagOutput = (flags & 1) != 0;
  request.arguments.clear();
  request.environment.clear();
  if (!reader.strings(request.arguments, "arguments", reason) ||
      !reader.strings(request.environment, "environment entries", reason))
    return false;
  if (request.arguments.empty()) {
    reason = "RunJob has no program name";
    return false;
  }
  for (const std::string& entry : request.environment) {
    if (entry.find('=') == std::string::npos) {
      reason = "RunJob environment entry without '='";
      return false;
    }
  }
  uint64_t parts = 0, partIndex = 0;
  if (!reader.integer(parts, 4) || !reader.integer(partIndex, 4))
    return PayloadReader::truncated(reason);
  if (parts > kMaxJobRanks || (parts > 0 && partIndex >= parts) || (parts == 0 && partIndex != 0)) {
    reason = "RunJob names part " + std::to_string(partIndex) + " of " + std::to_string(parts);
    return false;
  }
  request.partIndex = uint32_t(partIndex);
  request.partRanks.clear();
  uint64_t total = 0;
  for (uint64_t i = 0; i < parts; ++i) {
    uint64_t count = 0;
    if (!reader.integer(count, 4)) return PayloadReader::truncated(reason);
    total += count;
    if (count == 0 || total > kMaxJobRanks) {
      reason = "RunJob has a part of " + std::to_string(count) + " ranks, or more than " +
               std::to_string(kMaxJobRanks) + " in all";
      return false;
    }
    request.partRanks.push_back(uint32_t(count));
  }
  if (parts > 0 && request.partRanks[partIndex] != request.ranks) {
    reason = "RunJob's part " + std::to_string(partIndex) + " does not have its " +
             std::to_string(request.ranks) + " ranks";
    return false;
  }
  // The part of each of the `total` world ranks, as many in each part as
  // partRanks says.
  request.rankParts.clear();
  if ((flags & 8) != 0) {
    if (parts < 2) {
      reason = "RunJob has a rank -> part table for " + std::to_string(parts) + " parts";
      return false;
    }
    std::vector<uint32_t> held(size_t(parts), 0);
    for (uint64_t rank = 0; rank < total; ++rank) {
      uint64_t part = 0;
      if (!reader.integer(part, 4)) return PayloadReader::truncated(reason);
      if (part >= parts || ++held[size_t(part)] > request.partRanks[size_t(part)]) {
        reason = "RunJob puts rank " + std::to_string(rank) + " on part " + std::to_string(part) +
                 ", which has no room for it";
        return false;
      }
      request.rankParts.push_back(uint32_t(part));
    }
  }
  request.grants.clear();
  request.workingDirectory.clear();
  if ((flags & 2) != 0 && !decodeGrants(reader, request, reason)) return false;
  request.checkpointDirectory.clear();
  request.checkpointProgram.clear();
  request.checkpointIntervalMicroseconds = 0;
  request.resume = false;
  request.resumeSequence = 0;
  if ((flags & 4) != 0 && !decodeCheckpointing(reader, request, reason)) return false;
  if (!reader.atEnd()) {
    reason = "RunJob payload has trailing bytes";
    return false;
  }
  return true;
}

std::string hashHex(const std::array<uint8_t, 32>& hash) { return util::hexDigits(hash); }

}  // namespace synergy::cluster

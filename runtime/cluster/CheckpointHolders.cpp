//===- CheckpointHolders.cpp - Which hosts hold a spread job's checkpoint -===//
//
// This file implements CheckpointHolders.h. The lists are comma-separated
// so that the record reads at a glance in redis-cli; every field is
// checked on the way back in, and errors name the field, never its value.
//
//===----------------------------------------------------------------------===//
#include "cluster/CheckpointHolders.h"

#include <string_view>
#include <type_traits>

#include "cluster/ClusterState.h"
#include "cluster/JobMessages.h"
#include "util/DecimalNumber.h"

namespace synergy::cluster {

namespace {

// A checkpoint record outlives its job by a day at most, as the job's
// migration and scheduling records do.
constexpr const char* kRecordLifetimeSeconds = "86400";
constexpr size_t kMaxHolders = 2;
// No guest writes 2^62 bytes of stdout: larger counts are corrupt.
constexpr uint64_t kMaxStdoutBytes = uint64_t(1) << 62;

std::string recordKey(uint64_t jobId) {
  return "synergy:job:" + std::to_string(jobId) + ":checkpoint";
}

// Splits "a,b,c" into its items; false when an item is empty or there are
// more than `limit`.
bool splitList(std::string_view text, size_t limit, std::vector<std::string_view>& items) {
  items.clear();
  if (text.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos
                                                                              : comma - start);
    if (item.empty() || items.size() == limit) return false;
    items.push_back(item);
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

template <typename Item>
std::string joinList(const std::vector<Item>& items) {
  std::string text;
  for (const Item& item : items) {
    if (!text.empty()) text += ',';
    if constexpr (std::is_same_v<Item, std::string>)
      text += item;
    else
      text += std::to_string(item);
  }
  return text;
}

[[noreturn]] void malformed(uint64_t jobId, const std::string& what) {
  throw StateStoreError("the checkpoint record of job " + std::to_string(jobId) + " has " + what);
}

}  // namespace

std::vector<std::string> partHostIds(RedisConnection& redis, uint64_t jobId,
                                     const std::vector<uint32_t>& partOfRanks,
                                     const std::vector<uint32_t>& holderParts) {
  std::vector<std::string> rankHosts = replyStrings(
      *redis.command({"LRANGE", "synergy:job:" + std::to_string(jobId) + ":ranks", "0", "-1"}));
  if (rankHosts.size() != partOfRanks.size())
    throw StateStoreError("the address table of job " + std::to_string(jobId) + " has " +
                          std::to_string(rankHosts.size()) + " ranks, not " +
                          std::to_string(partOfRanks.size()));
  std::vector<std::string> hosts;
  for (uint32_t part : holderParts) {
    size_t rank = 0;
    while (rank < partOfRanks.size() && partOfRanks[rank] != part) ++rank;
    if (rank == partOfRanks.size() || !isValidHostId(rankHosts[rank]))
      throw StateStoreError("the address table of job " + std::to_string(jobId) +
                            " has no valid host for part " + std::to_string(part));
    hosts.push_back(rankHosts[rank]);
  }
  return hosts;
}

void recordCheckpointHolders(RedisConnection& redis, uint64_t jobId,
                             const CheckpointHolders& holders) {
  std::string key = recordKey(jobId);
  // DEL first: a field of an older layout must not outlive the new record.
  redis.pipeline({{"DEL", key},
                  {"HSET", key, "sequence", std::to_string(holders.sequence), "hosts",
                   joinList(holders.hostIds), "outputs", joinList(holders.stdoutBytes)},
                  {"EXPIRE", key, kRecordLifetimeSeconds}});
}

std::optional<CheckpointHolders> readCheckpointHolders(RedisConnection& redis, uint64_t jobId) {
  std::vector<std::string> fields =
      replyStrings(*redis.command({"HGETALL", recordKey(jobId)}));
  if (fields.empty()) return std::nullopt;
  CheckpointHolders holders;
  bool hasSequence = false, hasHosts = false, hasOutputs = false;
  std::vector<std::string_view> items;
  for (size_t i = 0; i + 1 < fields.size(); i += 2) {
    const std::string& name = fields[i];
    const std::string& value = fields[i + 1];
    if (name == "sequence") {
      if (!util::parseDecimal(value, UINT64_MAX >> 1, holders.sequence) || holders.sequence == 0)
        malformed(jobId, "a malformed sequence");
      hasSequence = true;
    } else if (name == "hosts") {
      if (!splitList(value, kMaxHolders, items)) malformed(jobId, "a malformed host list");
      for (std::string_view item : items) {
        std::string host(item);
        if (!isValidHostId(host)) malformed(jobId, "a malformed host id");
        for (const std::string& other : holders.hostIds)
          if (other == host) malformed(jobId, "a host named twice");
        holders.hostIds.push_back(std::move(host));
      }
      hasHosts = true;
    } else if (name == "outputs") {
      if (!splitList(value, kMaxJobRanks, items)) malformed(jobId, "a malformed output list");
      for (std::string_view item : items) {
        uint64_t bytes = 0;
        if (!util::parseDecimal(item, kMaxStdoutBytes, bytes))
          malformed(jobId, "a malformed output count");
        holders.stdoutBytes.push_back(bytes);
      }
      hasOutputs = true;
    } else {
      malformed(jobId, "an unknown field");
    }
  }
  if (!hasSequence || !hasHosts || !hasOutputs) malformed(jobId, "a missing field");
  return holders;
}

void deleteCheckpointHolders(RedisConnection& redis, uint64_t jobId) {
  redis.command({"DEL", recordKey(jobId)});
}

}  // namespace synergy::cluster

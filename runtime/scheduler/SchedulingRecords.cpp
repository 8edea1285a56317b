//===- SchedulingRecords.cpp - What the background scheduler keeps in Redis -===//
//
// This file implements SchedulingRecords.h. The lease is one Lua script so
// that taking it and renewing it are each atomic: two daemons can never
// both believe they hold it.
//
//===----------------------------------------------------------------------===//
#include "scheduler/SchedulingRecords.h"

#include <sstream>

#include "cluster/ClusterState.h"
#include "cluster/JobMessages.h"
#include "util/DecimalNumber.h"

namespace synergy::scheduler {

namespace {

constexpr const char* kDecisionLogKey = "synergy:scheduler:decisions";
constexpr const char* kLeaderKey = "synergy:scheduler:leader";
// A job's record outlives it by a day at most, as its migration record does.
constexpr const char* kRecordLifetimeSeconds = "86400";
// No clock of ours reads past this (the year 2286): larger stamps are corrupt.
constexpr uint64_t kLatestMs = 9999999999999ULL;

// Takes the lease when it is free or renews it when ARGV[1] holds it.
constexpr const char* kHoldLeaseScript = R"lua(
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
)lua";

// The holder as a list of zero or one: GET's nil is no string.
constexpr const char* kReadLeaseScript = R"lua(
local holder = redis.call('GET', KEYS[1])
if holder then return {holder} end
return {}
)lua";

constexpr const char* kReleaseLeaseScript = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
)lua";

std::string recordKey(uint64_t jobId) {
  return "synergy:job:" + std::to_string(jobId) + ":scheduling";
}

bool isPolicyName(const std::string& text) {
  return text == "binpack" || text == "spread" || text == "locality" || text == "compact";
}

}  // namespace

int64_t wallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void writeJobScheduling(cluster::RedisConnection& redis, uint64_t jobId,
                        const JobScheduling& scheduling) {
  std::string key = recordKey(jobId);
  redis.pipeline({{"HSET", key, "policy", scheduling.policy, "movable",
                   scheduling.movable ? "1" : "0", "moved-at",
                   std::to_string(scheduling.movedAtMs), "decided-at",
                   std::to_string(scheduling.decidedAtMs)},
                  {"EXPIRE", key, kRecordLifetimeSeconds}});
}

std::optional<JobScheduling> readJobScheduling(cluster::RedisConnection& redis, uint64_t jobId) {
  std::vector<std::string> fields =
      cluster::replyStrings(*redis.command({"HGETALL", recordKey(jobId)}));
  if (fields.empty()) return std::nullopt;
  JobScheduling scheduling;
  bool named = false, flagged = false;
  for (size_t i = 0; i + 1 < fields.size(); i += 2) {
    const std::string& name = fields[i];
    const std::string& value = fields[i + 1];
    uint64_t number = 0;
    bool ok = true;
    if (name == "policy") {
      ok = named = isPolicyName(value);
      scheduling.policy = value;
    } else if (name == "movable") {
      ok = flagged = value == "0" || value == "1";
      scheduling.movable = value == "1";
    } else if (name == "moved-at" || name == "decided-at") {
      ok = util::parseDecimal(value, kLatestMs, number);
      (name == "moved-at" ? scheduling.movedAtMs : scheduling.decidedAtMs) = int64_t(number);
    }
    if (!ok)
      throw cluster::StateStoreError("the scheduling record of job " + std::to_string(jobId) +
                                     " has a malformed " + name);
  }
  if (!named || !flagged)
    throw cluster::StateStoreError("the scheduling record of job " + std::to_string(jobId) +
                                   " is malformed");
  return scheduling;
}

void recordDecision(cluster::RedisConnection& redis, const LoggedDecision& decision,
                    const cluster::MigrationRequest& request) {
  cluster::requestMigration(redis, decision.jobId, request);
  std::string entry = std::to_string(decision.atMs) + " " + std::to_string(decision.jobId) + " " +
                      decision.policy + " " + std::to_string(decision.hostsBefore) + " " +
                      cluster::formatHostCounts(decision.placement);
  redis.pipeline({{"HSET", recordKey(decision.jobId), "decided-at",
                   std::to_string(decision.atMs)},
                  {"LPUSH", kDecisionLogKey, entry},
                  {"LTRIM", kDecisionLogKey, "0", std::to_string(kDecisionLogLength - 1)}});
}

std::vector<LoggedDecision> recentDecisions(cluster::RedisConnection& redis) {
  std::vector<LoggedDecision> decisions;
  for (const std::string& entry : cluster::replyStrings(*redis.command(
           {"LRANGE", kDecisionLogKey, "0", std::to_string(kDecisionLogLength - 1)}))) {
    std::istringstream words(entry);
    std::string at, job, policy, hosts, placement, extra;
    uint64_t atMs = 0, jobId = 0, hostsBefore = 0;
    LoggedDecision decision;
    if (!(words >> at >> job >> policy >> hosts >> placement) || (words >> extra) ||
        !util::parseDecimal(at, kLatestMs, atMs) || !util::parseDecimal(job, UINT64_MAX >> 1, jobId) ||
        !isPolicyName(policy) || !util::parseDecimal(hosts, cluster::kMaxJobRanks, hostsBefore) ||
        !cluster::parseHostCounts(placement, decision.placement) || decision.placement.empty())
      continue;
    decision.atMs = int64_t(atMs);
    decision.jobId = jobId;
    decision.policy = policy;
    decision.hostsBefore = unsigned(hostsBefore);
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

bool holdSchedulerLease(cluster::RedisConnection& redis, const std::string& hostId,
                        std::chrono::milliseconds lease) {
  return cluster::replyInteger(*redis.command({"EVAL", kHoldLeaseScript, "1", kLeaderKey, hostId,
                                               std::to_string(lease.count())})) == 1;
}

std::optional<std::string> schedulerLeaseHolder(cluster::RedisConnection& redis) {
  std::vector<std::string> holder =
      cluster::replyStrings(*redis.command({"EVAL", kReadLeaseScript, "1", kLeaderKey}));
  if (holder.size() != 1 || !cluster::isValidHostId(holder[0])) return std::nullopt;
  return holder[0];
}

void releaseSchedulerLease(cluster::RedisConnection& redis, const std::string& hostId) {
  redis.command({"EVAL", kReleaseLeaseScript, "1", kLeaderKey, hostId});
}

}  // namespace synergy::scheduler

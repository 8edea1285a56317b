//===- Migration.cpp - moving ranks of a spread job at a barrier control point -===//
//
// This file implements Migration.h: the request record in the cluster
// state, the plans that fill it in, and part 0's watch over it.
//
//===----------------------------------------------------------------------===//
#include "cluster/Migration.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "cluster/JobMessages.h"

namespace synergy::cluster {

namespace {

// How long part 0 goes without reading the record after finding no
// request: a job may pass thousands of control points a second, and a
// move asked by hand can wait that long.
constexpr auto kQuietReadInterval = std::chrono::milliseconds(50);

// A moved-at past this (the year 5138) is refused as hostile.
constexpr uint64_t kLatestMovedAtMs = 99999999999999;

// The record outlives a job that never finished it by a day at most.
constexpr const char* kRecordLifetimeSeconds = "86400";

std::string recordKey(uint64_t jobId) {
  return "synergy:job:" + std::to_string(jobId) + ":migration";
}

bool parseCount(const std::string& text, uint64_t limit, uint64_t& value) {
  if (text.empty() || text.size() > 20) return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + uint64_t(c - '0');
    if (value > limit) return false;
  }
  return true;
}

// At most `limit` bytes of `text` with control characters as '?': the
// record's free text reaches terminals through stderr.
std::string printable(const std::string& text, size_t limit) {
  std::string out = text.substr(0, limit);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

std::string rankList(const std::vector<unsigned>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? "," : "") + std::to_string(ranks[i]);
  return text;
}

// `rankHosts` as runs of consecutive ranks on one host, in rank order; a
// host holds more than one run when its ranks are not consecutive.
HostCounts runsOf(const std::vector<std::string>& rankHosts) {
  HostCounts runs;
  for (const std::string& host : rankHosts) {
    if (!runs.empty() && runs.back().first == host)
      ++runs.back().second;
    else
      runs.push_back({host, 1});
  }
  return runs;
}

// The slots each host of `after` needs beyond what the job holds there now.
HostCounts claimsOf(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  std::map<std::string, long> need;
  for (const std::string& host : after) ++need[host];
  for (const std::string& host : before) --need[host];
  HostCounts claims;
  for (const auto& [host, count] : need)
    if (count > 0) claims.push_back({host, unsigned(count)});
  return claims;
}

const HostRecord* findHost(const std::vector<HostRecord>& hosts, const std::string& id) {
  for (const HostRecord& host : hosts)
    if (host.id == id) return &host;
  return nullptr;
}

// The host of each of a job's `ranks` ranks after `placement` (its runs in
// rank order): false when its counts add up to another number of ranks
// (`after` then stops past `ranks`, so a hostile count costs nothing).
bool hostOfEachRank(const HostCounts& placement, size_t ranks, std::vector<std::string>& after) {
  after.clear();
  for (const auto& [host, count] : placement) {
    if (count > ranks - after.size()) {
      after.resize(ranks + 1);
      return false;
    }
    after.insert(after.end(), count, host);
  }
  return after.size() == ranks;
}

}  // namespace

std::string formatHostCounts(const HostCounts& counts) {
  std::string text;
  for (const auto& [host, count] : counts)
    text += (text.empty() ? "" : ",") + host + ":" + std::to_string(count);
  return text;
}

bool parseHostCounts(const std::string& text, HostCounts& counts) {
  counts.clear();
  uint64_t total = 0;
  if (text.empty()) return true;
  // Every item, the last one too, is "host:count": no empty item anywhere.
  for (size_t at = 0; at <= text.size();) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(at, comma - at);
    size_t colon = item.rfind(':');
    uint64_t count = 0;
    if (colon == std::string::npos || !isValidHostId(item.substr(0, colon)) ||
        !parseCount(item.substr(colon + 1), kMaxJobRanks, count) || count == 0)
      return false;
    total += count;
    if (total > kMaxJobRanks) return false;
    counts.push_back({item.substr(0, colon), unsigned(count)});
    at = comma + 1;
  }
  return true;
}

std::optional<MigrationRequest> readMigration(RedisConnection& redis, uint64_t jobId) {
  std::vector<std::string> fields = replyStrings(*redis.command({"HGETALL", recordKey(jobId)}));
  if (fields.empty()) return std::nullopt;
  MigrationRequest request;
  bool placed = false;
  uint64_t movedAt = 0;
  for (size_t i = 0; i + 1 < fields.size(); i += 2) {
    const std::string& name = fields[i];
    const std::string& value = fields[i + 1];
    bool ok = true;
    if (name == "state")
      request.state = value;
    else if (name == "at")
      ok = parseCount(value, UINT32_MAX, request.at);
    else if (name == "placement")
      ok = placed = parseHostCounts(value, request.placement) && !request.placement.empty();
    else if (name == "claims")
      ok = parseHostCounts(value, request.claims);
    else if (name == "what")
      request.what = printable(value, 256);
    else if (name == "reason")
      request.reason = printable(value, 1024);
    else if (name == "moved-at")
      ok = parseCount(value, kLatestMovedAtMs, movedAt);
    if (!ok) throw StateStoreError("the migration record of job " + std::to_string(jobId) +
                                   " has a malformed " + name);
  }
  if (!placed || (request.state != "requested" && request.state != "stopping" &&
                  request.state != "aborted" && request.state != "done"))
    throw StateStoreError("the migration record of job " + std::to_string(jobId) +
                          " is malformed");
  request.movedAtMs = int64_t(movedAt);
  return request;
}

void requestMigration(RedisConnection& redis, uint64_t jobId, const MigrationRequest& request) {
  std::string key = recordKey(jobId);
  redis.pipeline({{"DEL", key},
                  {"HSET", key, "state", "requested", "at", std::to_string(request.at),
                   "placement", formatHostCounts(request.placement), "claims",
                   formatHostCounts(request.claims), "what", request.what},
                  {"EXPIRE", key, kRecordLifetimeSeconds}});
}

void setMigrationState(RedisConnection& redis, uint64_t jobId, const std::string& state,
                       const std::string& reason) {
  redis.command({"HSET", recordKey(jobId), "state", state, "reason", reason});
}

std::optional<MigrationRequest> planMove(const std::vector<std::string>& rankHosts,
                                         const std::vector<unsigned>& ranks,
                                         const std::string& target,
                                         const std::vector<HostRecord>& hosts, uint64_t at,
                                         std::string& error) {
  if (rankHosts.empty()) {
    error = "the job is not running over the cluster's hosts (no rank -> host table)";
    return std::nullopt;
  }
  if (!findHost(hosts, target)) {
    error = "no live host '" + target + "' in the cluster";
    return std::nullopt;
  }
  std::vector<std::string> after = rankHosts;
  for (unsigned rank : ranks) {
    if (rank >= rankHosts.size()) {
      error = "the job has no rank " + std::to_string(rank) + " (it has " +
              std::to_string(rankHosts.size()) + ")";
      return std::nullopt;
    }
    after[rank] = target;
  }
  if (after == rankHosts) {
    error = rankList(ranks) + " already run on host " + target;
    return std::nullopt;
  }
  return MigrationRequest{"requested", at, runsOf(after), claimsOf(rankHosts, after),
                          rankList(ranks) + " to host " + target, {}};
}

std::optional<MigrationRequest> planConsolidation(const std::vector<std::string>& rankHosts,
                                                  const std::vector<HostRecord>& hosts,
                                                  uint64_t at, std::string& error) {
  std::map<std::string, unsigned> held;
  for (const std::string& host : rankHosts) ++held[host];
  if (held.size() < 2) {
    error = "the job runs on one host already";
    return std::nullopt;
  }
  const std::string* best = nullptr;
  for (const auto& [id, count] : held) {
    const HostRecord* host = findHost(hosts, id);
    if (!host || host->draining || host->slots < rankHosts.size()) continue;
    if (!best || count > held[*best]) best = &id;
  }
  if (!best) {
    error = "no host of the job has the " + std::to_string(rankHosts.size()) +
            " slots to hold all its ranks";
    return std::nullopt;
  }
  std::vector<std::string> after(rankHosts.size(), *best);
  return MigrationRequest{"requested", at, {{*best, unsigned(rankHosts.size())}},
                          claimsOf(rankHosts, after), "every rank to host " + *best, {}};
}

std::optional<MigrationRequest> planPlacement(const std::vector<std::string>& rankHosts,
                                             const HostCounts& placement, uint64_t at,
                                             std::string& error) {
  std::vector<std::string> after;
  if (!hostOfEachRank(placement, rankHosts.size(), after)) {
    uint64_t held = 0;
    for (const auto& run : placement) held += run.second;
    error = "the placement holds " + std::to_string(held) + " ranks, not the job's " +
            std::to_string(rankHosts.size());
    return std::nullopt;
  }
  if (after == rankHosts) {
    error = "the job is placed so already";
    return std::nullopt;
  }
  for (size_t i = 0; i < placement.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (placement[j].first == placement[i].first) {
        error = "host " + placement[i].first + " comes twice in the placement";
        return std::nullopt;
      }
  std::string what = placement.size() == 1 ? "every rank to host " + placement[0].first
                                           : "its ranks to hosts " + formatHostCounts(placement);
  return MigrationRequest{"requested", at, placement, claimsOf(rankHosts, after), what, {}};
}

HostCounts fragmentedPlacement(const std::vector<HostRecord>& hosts, unsigned ranks,
                               unsigned fragments) {
  std::vector<const HostRecord*> live;
  for (const HostRecord& host : hosts)
    if (!host.draining) live.push_back(&host);
  std::stable_sort(live.begin(), live.end(), [](const HostRecord* a, const HostRecord* b) {
    return a->freeSlots > b->freeSlots;
  });
  if (fragments == 0 || fragments > ranks || live.size() < fragments) return {};
  live.resize(fragments);
  std::sort(live.begin(), live.end(),
            [](const HostRecord* a, const HostRecord* b) { return a->id < b->id; });
  HostCounts placement;
  for (unsigned i = 0; i < fragments; ++i) {
    unsigned share = ranks / fragments + (i < ranks % fragments ? 1 : 0);
    if (live[i]->freeSlots < share) return {};
    placement.push_back({live[i]->id, share});
  }
  return placement;
}

bool parseForcedMigration(const std::string& text, ForcedMigration& forced, std::string& error) {
  error = "SYNERGY_FORCE_MIGRATION expects RANKS@N:HOST (e.g. 1@2:h3 or 0,2@2:h3), got '" +
          text + "'";
  size_t atSign = text.find('@');
  size_t colon = text.find(':', atSign == std::string::npos ? 0 : atSign);
  if (atSign == std::string::npos || colon == std::string::npos) return false;
  std::string rankText = text.substr(0, atSign);
  forced = {};
  size_t at = 0;
  while (at <= rankText.size()) {
    size_t comma = rankText.find(',', at);
    if (comma == std::string::npos) comma = rankText.size();
    uint64_t rank = 0;
    if (!parseCount(rankText.substr(at, comma - at), kMaxJobRanks - 1, rank)) return false;
    forced.ranks.push_back(unsigned(rank));
    at = comma + 1;
  }
  forced.host = text.substr(colon + 1);
  if (!parseCount(text.substr(atSign + 1, colon - atSign - 1), UINT32_MAX, forced.at) ||
      forced.at == 0 || !isValidHostId(forced.host))
    return false;
  error.clear();
  return true;
}

std::optional<std::vector<LiveMovePlan>> planLiveMoves(const MigrationRequest& request,
                                                       const std::vector<std::string>& rankHosts,
                                                       const std::vector<uint32_t>& partOfRanks,
                                                       std::string& why, bool part0MayLeave) {
  std::vector<std::string> after;
  if (!hostOfEachRank(request.placement, rankHosts.size(), after) ||
      partOfRanks.size() != rankHosts.size()) {
    why = "its placement does not cover the job's " + std::to_string(rankHosts.size()) + " ranks";
    return std::nullopt;
  }
  std::vector<bool> moves(after.size());
  std::vector<LiveMovePlan> plan;
  for (uint32_t rank = 0; rank < after.size(); ++rank)
    if ((moves[rank] = after[rank] != rankHosts[rank]))
      plan.push_back({rank, partOfRanks[rank], 0});
  if (plan.empty()) {
    why = "no rank moves";
    return std::nullopt;
  }
  // Each rank goes into the part of a rank that stays on its new host: that
  // part keeps a rank through every step, so no step moves into a part an
  // earlier one emptied.
  for (LiveMovePlan& step : plan) {
    bool found = false;
    for (uint32_t rank = 0; rank < after.size() && !found; ++rank)
      if (!moves[rank] && rankHosts[rank] == after[step.rank] &&
          partOfRanks[rank] != step.source) {
        step.target = partOfRanks[rank];
        found = true;
      }
    if (!found) {
      why = "host " + after[step.rank] + " runs no part of the job that keeps a rank";
      if (plan.size() == 1) why = "host " + after[step.rank] + " runs no part of the job";
      return std::nullopt;
    }
  }
  bool part0Keeps = false;
  for (uint32_t rank = 0; rank < after.size(); ++rank)
    part0Keeps = part0Keeps || (partOfRanks[rank] == 0 && !moves[rank]);
  if (!part0Keeps && !part0MayLeave) {
    why = plan.size() == 1 ? "rank " + std::to_string(plan[0].rank) +
                                 " is part 0's last rank, and part 0 runs the agreement"
                           : "every rank of part 0 moves, and part 0 runs the agreement";
    why += " (it leaves the job only when the job checkpoints only to be moved)";
    return std::nullopt;
  }
  // Part 0 plans every step and holds the other parts between them: its
  // own go last, so that it leaves with the move's last step.
  if (!part0Keeps)
    std::stable_partition(plan.begin(), plan.end(),
                          [](const LiveMovePlan& step) { return step.source != 0; });
  return plan;
}

bool MigrationWatch::dueAt(uint64_t round, uint64_t* pendingAt) {
  auto now = std::chrono::steady_clock::now();
  if (storeFailed_ || now < quietUntil_) return false;
  try {
    if (!redis_) redis_.emplace(state_, std::chrono::milliseconds(2000));
    std::optional<MigrationRequest> request = readMigration(*redis_, jobId_);
    request_.reset();
    if (!request || request->state != "requested") {
      quietUntil_ = now + kQuietReadInterval;
      return false;
    }
    request_ = request;
    if (request->at && round < request->at) {
      if (pendingAt) *pendingAt = request->at;
      return false;
    }
    if (!cluster_) cluster_.emplace(state_);
    std::vector<HostRecord> hosts = cluster_->hosts();
    // The request's claims were counted against the placement it was asked
    // on. The steps of it taken live before one was not (CheckpointAgreement.h)
    // each claimed their slot already and moved the rank in the job's rank ->
    // host record: what the restart path still needs is counted against
    // that record, as the request's planner counted it.
    HostCounts claims = request->claims;
    std::vector<std::string> rankHosts = cluster_->rankHosts(jobId_), after;
    if (!rankHosts.empty() && hostOfEachRank(request->placement, rankHosts.size(), after))
      claims = claimsOf(rankHosts, after);
    for (const auto& [id, slots] : claims) {
      const HostRecord* host = findHost(hosts, id);
      std::string lack;
      if (!host || host->draining)
        lack = "host " + id + " is gone or draining";
      else if (host->freeSlots < slots)
        lack = "host " + id + " has " + std::to_string(host->freeSlots) + " free slots, not the " +
               std::to_string(slots) + " the move needs";
      if (!lack.empty()) {
        setMigrationState(*redis_, jobId_, "aborted", lack);
        std::fprintf(stderr,
                     "synergy-run: note: migration of %s aborted at control point %llu: %s; the "
                     "job goes on where it is\n",
                     request->what.c_str(), (unsigned long long)round, lack.c_str());
        return false;
      }
    }
    what_ = request->what;
    return true;
  } catch (const StateStoreError& e) {
    storeFailed_ = true;
    std::fprintf(stderr, "synergy-run: note: migrations are not watched for: %s\n", e.what());
    return false;
  }
}

void MigrationWatch::takenLive(const std::string& how) {
  try {
    if (!redis_) redis_.emplace(state_, std::chrono::milliseconds(2000));
    int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    redis_->command({"HSET", recordKey(jobId_), "state", "done", "reason", how, "moved-at",
                     std::to_string(now)});
  } catch (const StateStoreError& e) {
    std::fprintf(stderr,
                 "synergy-run: note: the move was taken live, but its record was not updated: %s\n",
                 e.what());
  }
}

bool MigrationWatch::finished(bool stop, std::string reason) {
  try {
    setMigrationState(*redis_, jobId_, stop ? "stopping" : "aborted", reason);
  } catch (const StateStoreError& e) {
    // The client restarts a stopped job only on a `stopping` record.
    stop = false;
    reason = std::string("the cluster state cannot record it: ") + e.what();
  }
  if (!stop)
    std::fprintf(stderr, "synergy-run: note: migration of %s aborted: %s; the job goes on\n",
                 what_.c_str(), reason.c_str());
  return stop;
}

void MigrationWatch::notTaken(uint64_t round, const std::string& why) {
  if (!redis_) return;
  try {
    redis_->command({"HSET", recordKey(jobId_), "reason",
                     "not taken at control point " + std::to_string(round) + ": " + why});
  } catch (const StateStoreError&) {
    // Only the client's note loses its reason.
  }
}

}  // namespace synergy::cluster

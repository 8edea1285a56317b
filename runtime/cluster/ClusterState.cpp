//===- ClusterState.cpp - Hosts, slots, jobs and the job queue in Redis ---===//
//
// This file implements ClusterState.h. Each operation that reads and then
// writes is one EVAL of a short Lua script: Redis runs a script atomically,
// which is what makes claims race-free without WATCH/MULTI retry loops. Every
// value read back from Redis is parsed strictly and range-checked, because
// the store is shared and may hold anything.
//
//===----------------------------------------------------------------------===//
#include "cluster/ClusterState.h"

#include <algorithm>
#include <cstdio>
#include <hiredis/hiredis.h>
#include <map>

#include "util/DecimalNumber.h"

namespace synergy::cluster {

namespace {

const std::string kHostsKey = "synergy:hosts";
const std::string kHostKeyPrefix = "synergy:host:";
const std::string kNextJobIdKey = "synergy:next-job-id";
const std::string kJobKeyPrefix = "synergy:job:";
const std::string kQueueKey = "synergy:queue";
const std::string kRunningKey = "synergy:running";

// Opens every script that frees slots or changes the queue's head, which
// then calls wakeHead(queue key, job key prefix): it leaves one wake token
// for the job now at the head, which that job's client takes with BLPOP
// (waitForTurn). The token lives in Redis, so a change made while the
// client was not yet waiting still wakes it.
const std::string kWakeHeadFunction = R"lua(
local function wakeHead(queue, prefix)
  local head = redis.call('LINDEX', queue, 0)
  if head then
    local wake = prefix .. head .. ':wake'
    redis.call('DEL', wake)
    redis.call('RPUSH', wake, 1)
    redis.call('PEXPIRE', wake, 60000)
  end
end
)lua";

// KEYS: host, hosts set. ARGV: id, address, slots, ttl.
const char* const kRegisterHostScript = R"lua(
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'address', ARGV[2], 'slots', ARGV[3],
           'free', ARGV[3], 'state', 'up')
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
)lua";

// KEYS: host, hosts, running. ARGV: host id, address, slots, ttl, job key
// prefix. Re-creates an entry that expired while its daemon lived: the
// slots of the jobs still running there (their parts on this host, or the
// whole job when it is not spread) stay taken, so that a missed heartbeat
// never hands them out twice.
const char* const kRestoreHostScript = R"lua(
local taken = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  local job = ARGV[5] .. id
  local parts = job .. ':parts'
  if redis.call('EXISTS', parts) == 1 then
    taken = taken + (tonumber(redis.call('HGET', parts, ARGV[1])) or 0)
  elseif redis.call('HGET', job, 'host') == ARGV[1] then
    taken = taken + (tonumber(redis.call('HGET', job, 'ranks')) or 0)
  end
end
local slots = tonumber(ARGV[3])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'address', ARGV[2], 'slots', slots,
           'free', math.max(0, slots - taken), 'state', 'up')
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[1])
return taken
)lua";

// KEYS: host. Never creates an entry without an expiry.
const char* const kDrainHostScript = R"lua(
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'state', 'draining')
end
return 1
)lua";

// KEYS: host, hosts set. ARGV: id.
const char* const kDeregisterHostScript = R"lua(
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return 1
)lua";

// KEYS: host. ARGV: count. Returns 1 claimed, 0 not enough, -1 unavailable.
const char* const kClaimSlotsScript = R"lua(
if redis.call('HGET', KEYS[1], 'state') ~= 'up' then return -1 end
local free = tonumber(redis.call('HGET', KEYS[1], 'free'))
local wanted = tonumber(ARGV[1])
if free == nil or free < wanted then return 0 end
redis.call('HINCRBY', KEYS[1], 'free', -wanted)
return 1
)lua";

// KEYS: next id, queue. ARGV: job key prefix, name, app, ranks, lease ms.
const char* const kSubmitJobScript = R"lua(
local id = redis.call('INCR', KEYS[1])
redis.call('HSET', ARGV[1] .. id, 'name', ARGV[2], 'app', ARGV[3], 'ranks', ARGV[4],
           'state', 'queued')
redis.call('SET', ARGV[1] .. id .. ':lease', 1, 'PX', ARGV[5])
redis.call('RPUSH', KEYS[2], id)
return id
)lua";

// KEYS: queue. ARGV: job key prefix. Returns the id of the head it removed
// because its lease had run out, or 0.
const std::string kDropAbandonedHeadScript = kWakeHeadFunction + R"lua(
local id = redis.call('LINDEX', KEYS[1], 0)
if not id then return 0 end
local job = ARGV[1] .. id
if redis.call('EXISTS', job .. ':lease') == 1 then return 0 end
if redis.call('HGET', job, 'state') ~= 'queued' then return 0 end
redis.call('LPOP', KEYS[1])
redis.call('DEL', job, job .. ':wake')
wakeHead(KEYS[1], ARGV[1])
return tonumber(id)
)lua";

// KEYS: queue, host, running. ARGV: job key prefix, host id.
// Returns the started job's id, or 0 when none started.
const std::string kStartQueuedJobScript = kWakeHeadFunction + R"lua(
local id = redis.call('LINDEX', KEYS[1], 0)
if not id then return 0 end
if redis.call('HGET', KEYS[2], 'state') ~= 'up' then return 0 end
local job = ARGV[1] .. id
local ranks = tonumber(redis.call('HGET', job, 'ranks'))
local free = tonumber(redis.call('HGET', KEYS[2], 'free'))
if ranks == nil or free == nil or free < ranks then return 0 end
redis.call('HINCRBY', KEYS[2], 'free', -ranks)
redis.call('LPOP', KEYS[1])
redis.call('DEL', job .. ':lease', job .. ':wake')
redis.call('HSET', job, 'state', 'running', 'host', ARGV[2])
redis.call('ZADD', KEYS[3], id, id)
wakeHead(KEYS[1], ARGV[1])
return tonumber(id)
)lua";

// KEYS: queue, running. ARGV: job key prefix, host key prefix, run count,
// then host id and rank count per run of consecutive ranks, in rank order
// (a host may hold more than one run). Returns the started job's id; 0 when
// none started; -1 when the runs do not add up to the job's ranks.
const std::string kStartQueuedJobAcrossScript = kWakeHeadFunction + R"lua(
local id = redis.call('LINDEX', KEYS[1], 0)
if not id then return 0 end
local job = ARGV[1] .. id
local runs = tonumber(ARGV[3])
local total = 0
local hosts, wantedOf = {}, {}
for i = 0, runs - 1 do
  local host = ARGV[4 + 2 * i]
  if not wantedOf[host] then
    hosts[#hosts + 1] = host
    wantedOf[host] = 0
  end
  wantedOf[host] = wantedOf[host] + tonumber(ARGV[5 + 2 * i])
  total = total + tonumber(ARGV[5 + 2 * i])
end
for _, host in ipairs(hosts) do
  if redis.call('HGET', ARGV[2] .. host, 'state') ~= 'up' then return 0 end
  local free = tonumber(redis.call('HGET', ARGV[2] .. host, 'free'))
  if free == nil or free < wantedOf[host] then return 0 end
end
if total ~= tonumber(redis.call('HGET', job, 'ranks')) then return -1 end
for _, host in ipairs(hosts) do
  redis.call('HINCRBY', ARGV[2] .. host, 'free', -wantedOf[host])
  redis.call('HSET', job .. ':parts', host, wantedOf[host])
end
local rankHosts = {}
for i = 0, runs - 1 do
  for r = 1, tonumber(ARGV[5 + 2 * i]) do rankHosts[#rankHosts + 1] = ARGV[4 + 2 * i] end
end
redis.call('LPOP', KEYS[1])
redis.call('DEL', job .. ':lease', job .. ':ranks', job .. ':wake')
redis.call('RPUSH', job .. ':ranks', unpack(rankHosts))
redis.call('HSET', job, 'state', 'running', 'host', ARGV[4])
redis.call('ZADD', KEYS[2], id, id)
wakeHead(KEYS[1], ARGV[1])
return tonumber(id)
)lua";

// KEYS: job, running, queue. ARGV: job id, host key prefix, host id or '',
// job key prefix.
// A job spread over hosts frees one host's part (or, with '', all of them)
// and goes away with its last part.
const std::string kFinishJobScript = kWakeHeadFunction + R"lua(
local function giveBack(host, ranks)
  local hostKey = ARGV[2] .. host
  if redis.call('EXISTS', hostKey) == 1 then
    local slots = tonumber(redis.call('HGET', hostKey, 'slots'))
    local free = tonumber(redis.call('HGET', hostKey, 'free')) + ranks
    redis.call('HSET', hostKey, 'free', math.min(slots, free))
  end
end
local parts = KEYS[1] .. ':parts'
if redis.call('EXISTS', parts) == 1 then
  if ARGV[3] ~= '' then
    local count = tonumber(redis.call('HGET', parts, ARGV[3]))
    if count then
      giveBack(ARGV[3], count)
      redis.call('HDEL', parts, ARGV[3])
    end
    if redis.call('EXISTS', parts) == 1 then
      wakeHead(KEYS[3], ARGV[4])
      return 1
    end
  else
    local flat = redis.call('HGETALL', parts)
    for i = 1, #flat, 2 do giveBack(flat[i], tonumber(flat[i + 1])) end
  end
else
  local host = redis.call('HGET', KEYS[1], 'host')
  local ranks = tonumber(redis.call('HGET', KEYS[1], 'ranks'))
  if host and ranks then giveBack(host, ranks) end
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('LREM', KEYS[3], 0, ARGV[1])
redis.call('DEL', KEYS[1], parts, KEYS[1] .. ':ranks', KEYS[1] .. ':endpoints',
           KEYS[1] .. ':lease', KEYS[1] .. ':wake')
wakeHead(KEYS[3], ARGV[4])
return 1
)lua";

// KEYS: job, host. ARGV: host id. A live move's claim of one slot for a
// rank joining the job's running part on the host: the job's part count
// there grows with the host's slots in use, or nothing changes. Returns 1
// claimed, 0 no free slot, -1 the host is not up, -2 the job has no part
// there.
const char* const kClaimMovedRankSlotScript = R"lua(
local parts = KEYS[1] .. ':parts'
local count = tonumber(redis.call('HGET', parts, ARGV[1]))
if count == nil or count < 1 then return -2 end
if redis.call('HGET', KEYS[2], 'state') ~= 'up' then return -1 end
local free = tonumber(redis.call('HGET', KEYS[2], 'free'))
if free == nil or free < 1 then return 0 end
redis.call('HINCRBY', KEYS[2], 'free', -1)
redis.call('HINCRBY', parts, ARGV[1], 1)
return 1
)lua";

// KEYS: job, host, queue. ARGV: host id, rank ('' for none), the rank's new
// host, job key prefix. Gives back the slot of one rank that left the
// job's part on the host (a live move's source, or a claim the move did not
// use): the part count there shrinks (the entry goes with its last rank,
// so that the part's end, which frees what the entry still names, frees
// nothing twice) and the host gets the slot back. With a rank, records its
// new host in the rank -> host table too. Returns 1 when a slot was given
// back, 0 when the part had none left to give (it has already ended).
const std::string kReturnMovedRankSlotScript = kWakeHeadFunction + R"lua(
local parts = KEYS[1] .. ':parts'
if ARGV[2] ~= '' then
  local rankTable = KEYS[1] .. ':ranks'
  local rank = tonumber(ARGV[2])
  if rank and rank < redis.call('LLEN', rankTable) then redis.call('LSET', rankTable, rank, ARGV[3]) end
end
local count = tonumber(redis.call('HGET', parts, ARGV[1]))
if count == nil or count < 1 then return 0 end
if count == 1 then
  redis.call('HDEL', parts, ARGV[1])
else
  redis.call('HINCRBY', parts, ARGV[1], -1)
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  local slots = tonumber(redis.call('HGET', KEYS[2], 'slots'))
  local free = tonumber(redis.call('HGET', KEYS[2], 'free'))
  if slots and free then redis.call('HSET', KEYS[2], 'free', math.min(slots, free + 1)) end
end
wakeHead(KEYS[3], ARGV[4])
return 1
)lua";

// KEYS: the job's endpoints hash. ARGV: this part's index, its endpoint,
// the job's part count, how long the wake lists live (ms). Publishes the
// endpoint, leaves a wake token for every other part (waitForJobEndpoints),
// and returns all endpoints published so far, in one round trip.
const char* const kPublishJobEndpointScript = R"lua(
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for part = 0, tonumber(ARGV[3]) - 1 do
  if part ~= tonumber(ARGV[1]) then
    local wake = KEYS[1] .. ':wake:' .. part
    redis.call('RPUSH', wake, 1)
    redis.call('PEXPIRE', wake, ARGV[4])
  end
end
return redis.call('HGETALL', KEYS[1])
)lua";

// KEYS: hosts set. ARGV: host key prefix. Every listed host's id and its
// hash (empty once expired), in one round trip.
const char* const kReadHostsScript = R"lua(
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGETALL', ARGV[1] .. id)
end
return out
)lua";

// KEYS: queue list or running sorted set. ARGV: job key prefix, LRANGE or
// ZRANGE. Every listed job's id and its hash, in one round trip.
const char* const kReadJobsScript = R"lua(
local out = {}
for _, id in ipairs(redis.call(ARGV[2], KEYS[1], 0, -1)) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGETALL', ARGV[1] .. id)
end
return out
)lua";

RedisReplyPtr runScript(RedisConnection& redis, const std::string& script,
                        const std::vector<std::string>& keys,
                        const std::vector<std::string>& arguments) {
  std::vector<std::string> command{"EVAL", script, std::to_string(keys.size())};
  command.insert(command.end(), keys.begin(), keys.end());
  command.insert(command.end(), arguments.begin(), arguments.end());
  return redis.command(command);
}

// The (id, hash) pairs of kReadHostsScript and kReadJobsScript.
std::vector<std::pair<std::string, const redisReply*>> idsAndHashes(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ARRAY || reply.elements % 2 != 0)
    throw StateStoreError("malformed reply listing the cluster state");
  std::vector<std::pair<std::string, const redisReply*>> pairs;
  for (size_t i = 0; i < reply.elements; i += 2) {
    const redisReply* id = reply.element[i];
    if (id->type != REDIS_REPLY_STRING)
      throw StateStoreError("malformed reply listing the cluster state");
    pairs.emplace_back(std::string(id->str, id->len), reply.element[i + 1]);
  }
  return pairs;
}

std::map<std::string, std::string> fieldsOf(const redisReply& reply) {
  std::vector<std::string> flat = replyStrings(reply);
  if (flat.size() % 2 != 0) throw StateStoreError("malformed hash reply");
  std::map<std::string, std::string> fields;
  for (size_t i = 0; i < flat.size(); i += 2) fields[flat[i]] = flat[i + 1];
  return fields;
}

unsigned requireCount(const std::map<std::string, std::string>& fields, const char* name,
                      uint64_t limit, const std::string& entry) {
  auto it = fields.find(name);
  uint64_t value = 0;
  if (it == fields.end() || !util::parseDecimal(it->second, limit, value))
    throw StateStoreError("corrupt cluster state: " + entry + " has no valid '" + name + "'");
  return unsigned(value);
}

// The records of listed (id, hash) pairs, skipping jobs already gone.
std::vector<JobRecord> jobsOf(
    const std::vector<std::pair<std::string, const redisReply*>>& listed) {
  std::vector<JobRecord> jobs;
  for (const auto& [id, hash] : listed) {
    JobRecord job;
    if (!util::parseDecimal(id, UINT64_MAX, job.id))
      throw StateStoreError("corrupt cluster state: job id '" + id + "'");
    std::map<std::string, std::string> fields = fieldsOf(*hash);
    // Gone since the list was read.
    if (fields.empty()) continue;
    job.name = fields["name"].substr(0, kMaxJobNameBytes);
    job.app = fields["app"].substr(0, kMaxJobNameBytes);
    job.ranks = requireCount(fields, "ranks", UINT32_MAX, "job " + id);
    job.host = fields["host"];
    jobs.push_back(std::move(job));
  }
  return jobs;
}

void checkHostId(const std::string& id) {
  if (!isValidHostId(id)) throw StateStoreError("invalid host id '" + id + "'");
}

}  // namespace

bool isValidHostId(const std::string& id) {
  return !id.empty() && id.size() <= kMaxHostIdBytes &&
         id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-_") ==
             std::string::npos;
}

ClusterState::ClusterState(const StateUrl& url, std::chrono::milliseconds timeout)
    : redis_(url, timeout) {}

void ClusterState::registerHost(const std::string& id, const std::string& address,
                                unsigned slots, unsigned ttlSeconds) {
  checkHostId(id);
  runScript(redis_, kRegisterHostScript, {kHostKeyPrefix + id, kHostsKey},
            {id, address, std::to_string(slots), std::to_string(ttlSeconds)});
}

unsigned ClusterState::restoreHost(const std::string& id, const std::string& address,
                                   unsigned slots, unsigned ttlSeconds) {
  checkHostId(id);
  RedisReplyPtr reply =
      runScript(redis_, kRestoreHostScript, {kHostKeyPrefix + id, kHostsKey, kRunningKey},
                {id, address, std::to_string(slots), std::to_string(ttlSeconds), kJobKeyPrefix});
  long long taken = replyInteger(*reply);
  if (taken < 0) throw StateStoreError("corrupt cluster state: negative slots in use on " + id);
  return unsigned(std::min<long long>(taken, slots));
}

bool ClusterState::refreshHost(const std::string& id, unsigned ttlSeconds) {
  checkHostId(id);
  RedisReplyPtr reply =
      redis_.command({"EXPIRE", kHostKeyPrefix + id, std::to_string(ttlSeconds)});
  return replyInteger(*reply) == 1;
}

void ClusterState::drainHost(const std::string& id) {
  checkHostId(id);
  runScript(redis_, kDrainHostScript, {kHostKeyPrefix + id}, {});
}

void ClusterState::deregisterHost(const std::string& id) {
  checkHostId(id);
  runScript(redis_, kDeregisterHostScript, {kHostKeyPrefix + id, kHostsKey}, {id});
}

std::vector<HostRecord> ClusterState::hosts() {
  RedisReplyPtr reply = runScript(redis_, kReadHostsScript, {kHostsKey}, {kHostKeyPrefix});
  std::vector<std::pair<std::string, const redisReply*>> listed = idsAndHashes(*reply);
  std::sort(listed.begin(), listed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<HostRecord> hosts;
  for (const auto& [id, hash] : listed) {
    if (!isValidHostId(id)) throw StateStoreError("corrupt cluster state: host id '" + id + "'");
    std::map<std::string, std::string> fields = fieldsOf(*hash);
    // Listed but expired: its daemon stopped heartbeating.
    if (fields.empty()) continue;
    std::string entry = "host '" + id + "'";
    HostRecord host;
    host.id = id;
    host.address = fields["address"];
    host.slots = requireCount(fields, "slots", kMaxSlotsPerHost, entry);
    host.freeSlots = requireCount(fields, "free", host.slots, entry);
    host.draining = fields["state"] != "up";
    hosts.push_back(std::move(host));
  }
  return hosts;
}

ClaimOutcome ClusterState::claimSlots(const std::string& hostId, unsigned count) {
  checkHostId(hostId);
  long long result = replyInteger(
      *runScript(redis_, kClaimSlotsScript, {kHostKeyPrefix + hostId}, {std::to_string(count)}));
  if (result == 1) return ClaimOutcome::Claimed;
  return result == 0 ? ClaimOutcome::NotEnoughSlots : ClaimOutcome::HostUnavailable;
}

uint64_t ClusterState::submitJob(const std::string& name, const std::string& app,
                                 unsigned ranks, std::chrono::milliseconds lease) {
  if (name.size() > kMaxJobNameBytes || app.size() > kMaxJobNameBytes)
    throw StateStoreError("job name longer than " + std::to_string(kMaxJobNameBytes) + " bytes");
  return uint64_t(replyInteger(*runScript(
      redis_, kSubmitJobScript, {kNextJobIdKey, kQueueKey},
      {kJobKeyPrefix, name, app, std::to_string(ranks),
       std::to_string(std::max<long long>(1, lease.count()))})));
}

bool ClusterState::renewQueuedJob(uint64_t jobId, std::chrono::milliseconds lease) {
  RedisReplyPtr reply =
      redis_.command({"PEXPIRE", kJobKeyPrefix + std::to_string(jobId) + ":lease",
                      std::to_string(std::max<long long>(1, lease.count()))});
  return replyInteger(*reply) == 1;
}

std::optional<uint64_t> ClusterState::dropAbandonedQueueHead() {
  long long id =
      replyInteger(*runScript(redis_, kDropAbandonedHeadScript, {kQueueKey}, {kJobKeyPrefix}));
  if (id <= 0) return std::nullopt;
  return uint64_t(id);
}

std::optional<JobRecord> ClusterState::startQueuedJob(const std::string& hostId) {
  checkHostId(hostId);
  long long id = replyInteger(*runScript(redis_, kStartQueuedJobScript,
                                         {kQueueKey, kHostKeyPrefix + hostId, kRunningKey},
                                         {kJobKeyPrefix, hostId}));
  if (id <= 0) return std::nullopt;
  return readJob(std::to_string(id));
}

std::optional<JobRecord> ClusterState::startQueuedJobAcross(
    const std::vector<std::pair<std::string, unsigned>>& parts) {
  std::vector<std::string> arguments{kJobKeyPrefix, kHostKeyPrefix, std::to_string(parts.size())};
  for (const auto& [hostId, ranks] : parts) {
    checkHostId(hostId);
    arguments.push_back(hostId);
    arguments.push_back(std::to_string(ranks));
  }
  long long id = replyInteger(
      *runScript(redis_, kStartQueuedJobAcrossScript, {kQueueKey, kRunningKey}, arguments));
  if (id < 0) throw StateStoreError("a placement does not cover the job's ranks");
  if (id == 0) return std::nullopt;
  return readJob(std::to_string(id));
}

void ClusterState::finishJob(uint64_t jobId, const std::string& hostId) {
  std::string id = std::to_string(jobId);
  runScript(redis_, kFinishJobScript, {kJobKeyPrefix + id, kRunningKey, kQueueKey},
            {id, kHostKeyPrefix, hostId, kJobKeyPrefix});
}

ClaimOutcome ClusterState::claimMovedRankSlot(uint64_t jobId, const std::string& hostId,
                                              std::string& why) {
  checkHostId(hostId);
  long long result = replyInteger(*runScript(
      redis_, kClaimMovedRankSlotScript,
      {kJobKeyPrefix + std::to_string(jobId), kHostKeyPrefix + hostId}, {hostId}));
  if (result == 1) return ClaimOutcome::Claimed;
  if (result == 0) {
    why = "host " + hostId + " has no free slot";
    return ClaimOutcome::NotEnoughSlots;
  }
  why = result == -2 ? "the job has no running part on host " + hostId
                     : "host " + hostId + " is draining or gone";
  return ClaimOutcome::HostUnavailable;
}

bool ClusterState::returnMovedRankSlot(uint64_t jobId, const std::string& hostId,
                                       std::optional<uint32_t> rank, const std::string& newHost) {
  checkHostId(hostId);
  if (rank) checkHostId(newHost);
  return replyInteger(*runScript(
             redis_, kReturnMovedRankSlotScript,
             {kJobKeyPrefix + std::to_string(jobId), kHostKeyPrefix + hostId, kQueueKey},
             {hostId, rank ? std::to_string(*rank) : std::string(), rank ? newHost : hostId,
              kJobKeyPrefix})) == 1;
}

std::vector<std::string> ClusterState::rankHosts(uint64_t jobId) {
  std::vector<std::string> hosts = replyStrings(
      *redis_.command({"LRANGE", kJobKeyPrefix + std::to_string(jobId) + ":ranks", "0", "-1"}));
  for (const std::string& host : hosts)
    if (!isValidHostId(host)) throw StateStoreError("corrupt cluster state: host id '" + host + "'");
  return hosts;
}

namespace {

std::map<uint32_t, std::string> endpointsOf(const redisReply& reply) {
  std::map<uint32_t, std::string> endpoints;
  for (const auto& [part, endpoint] : fieldsOf(reply)) {
    uint64_t index = 0;
    if (!util::parseDecimal(part, UINT32_MAX, index))
      throw StateStoreError("corrupt cluster state: job endpoint '" + part + "'");
    endpoints[uint32_t(index)] = endpoint;
  }
  return endpoints;
}

}  // namespace

std::map<uint32_t, std::string> ClusterState::publishJobEndpoint(uint64_t jobId, uint32_t part,
                                                                 uint32_t partCount,
                                                                 const std::string& endpoint) {
  return endpointsOf(*runScript(
      redis_, kPublishJobEndpointScript,
      {kJobKeyPrefix + std::to_string(jobId) + ":endpoints"},
      {std::to_string(part), endpoint, std::to_string(partCount),
       std::to_string(kJobEndpointWakeLifetime.count())}));
}

std::map<uint32_t, std::string> ClusterState::jobEndpoints(uint64_t jobId) {
  return endpointsOf(
      *redis_.command({"HGETALL", kJobKeyPrefix + std::to_string(jobId) + ":endpoints"}));
}

bool ClusterState::waitForJobEndpoints(uint64_t jobId, uint32_t part,
                                       std::chrono::milliseconds timeout) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", double(timeout.count()) / 1000);
  RedisReplyPtr reply = redis_.command(
      {"BLPOP", kJobKeyPrefix + std::to_string(jobId) + ":endpoints:wake:" + std::to_string(part),
       seconds});
  return reply->type != REDIS_REPLY_NIL;
}

std::optional<JobRecord> ClusterState::readJob(const std::string& id) {
  std::vector<JobRecord> jobs = readJobs({id});
  if (jobs.empty()) return std::nullopt;
  return jobs.front();
}

std::vector<JobRecord> ClusterState::readJobs(const std::vector<std::string>& ids) {
  std::vector<std::vector<std::string>> reads;
  for (const std::string& id : ids) reads.push_back({"HGETALL", kJobKeyPrefix + id});
  std::vector<RedisReplyPtr> replies = redis_.pipeline(reads);
  std::vector<std::pair<std::string, const redisReply*>> listed;
  for (size_t i = 0; i < ids.size(); ++i) listed.emplace_back(ids[i], replies[i].get());
  return jobsOf(listed);
}

std::vector<JobRecord> ClusterState::queuedJobs() {
  return jobsOf(idsAndHashes(*runScript(redis_, kReadJobsScript, {kQueueKey},
                                        {kJobKeyPrefix, "LRANGE"})));
}

std::vector<JobRecord> ClusterState::runningJobs() {
  return jobsOf(idsAndHashes(*runScript(redis_, kReadJobsScript, {kRunningKey},
                                        {kJobKeyPrefix, "ZRANGE"})));
}

std::optional<uint64_t> ClusterState::renewQueuedJobAndReadHead(uint64_t jobId,
                                                                std::chrono::milliseconds lease) {
  std::vector<RedisReplyPtr> replies = redis_.pipeline(
      {{"PEXPIRE", kJobKeyPrefix + std::to_string(jobId) + ":lease",
        std::to_string(std::max<long long>(1, lease.count()))},
       {"LINDEX", kQueueKey, "0"}});
  if (replyInteger(*replies[0]) != 1) return std::nullopt;
  const redisReply& head = *replies[1];
  if (head.type == REDIS_REPLY_NIL) return 0;
  uint64_t id = 0;
  if (head.type != REDIS_REPLY_STRING || !util::parseDecimal(std::string(head.str, head.len), UINT64_MAX, id))
    throw StateStoreError("corrupt cluster state: the queue's head");
  return id;
}

bool ClusterState::waitForTurn(uint64_t jobId, std::chrono::milliseconds timeout) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", double(timeout.count()) / 1000);
  RedisReplyPtr reply =
      redis_.command({"BLPOP", kJobKeyPrefix + std::to_string(jobId) + ":wake", seconds});
  return reply->type != REDIS_REPLY_NIL;
}

}  // namespace synergy::cluster

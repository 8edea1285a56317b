//===- ClusterState.h - Hosts, slots, jobs and the job queue in Redis -----===//
//
// The state every synergyd and client of a cluster shares, kept in Redis:
//
//   synergy:hosts          set of host ids
//   synergy:host:<id>      hash id, address, slots, free, state (up|draining);
//                          expires unless its daemon refreshes it (heartbeat)
//   synergy:next-job-id    counter
//   synergy:job:<id>       hash name, app, ranks, state (queued|running), host
//   synergy:queue          list of queued job ids, oldest first (FIFO)
//   synergy:running        sorted set of running job ids
//   synergy:job:<id>:parts     hash host id -> ranks, for a job spread over
//                              hosts (its parts are consecutive ranks)
//   synergy:job:<id>:ranks     list: the host id of each rank (address table)
//   synergy:job:<id>:endpoints hash part index -> "address:port" where that
//                              part's process takes its peers' connections
//   synergy:job:<id>:endpoints:wake:<part>
//                              list with a token for each endpoint another
//                              part published; expires with the join limit
//   synergy:job:<id>:wake      list holding one token when the queued job
//                              has become the head or slots were freed
//
// Every read-modify-write runs as one Lua script inside Redis, so two clients
// claiming slots at the same moment can never oversubscribe a host, and a
// job leaves the queue exactly when its slots are taken.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/RedisConnection.h"

namespace synergy::cluster {

// A host entry holds at most this many slots; larger counts in the store
// are treated as corrupt.
constexpr unsigned kMaxSlotsPerHost = 4096;
// Longest host id and job name accepted.
constexpr size_t kMaxHostIdBytes = 64;
constexpr size_t kMaxJobNameBytes = 256;

struct HostRecord {
  std::string id;
  std::string address;
  unsigned slots = 0;
  unsigned freeSlots = 0;
  bool draining = false;
};

struct JobRecord {
  uint64_t id = 0;
  std::string name;
  // The module's content hash: placement by locality looks for hosts that
  // already run the same app.
  std::string app;
  unsigned ranks = 0;
  // Empty while the job is queued.
  std::string host;
};

enum class ClaimOutcome {
  Claimed,
  NotEnoughSlots,
  // No such host, expired, or draining.
  HostUnavailable,
};

// Host ids are letters, digits and ".:-_", at most kMaxHostIdBytes long.
bool isValidHostId(const std::string& id);

// How long a caller whose commands fail keeps retrying the idempotent ones
// before it takes the state store for gone and says so: a Redis (or a
// host) busy enough to miss one command's timeout is not an outage.
constexpr std::chrono::seconds kStateOutageLimit{10};
// How long a queued job keeps its place without its client renewing it.
constexpr std::chrono::milliseconds kQueuedJobLease{10000};
// How long a part's endpoint wake list outlives its last token: past the
// longest time a part waits for the others to come up.
constexpr std::chrono::milliseconds kJobEndpointWakeLifetime{180000};

class ClusterState {
 public:
  // Connects; `timeout` bounds the connect and every later command. Throws
  // StateStoreError.
  explicit ClusterState(const StateUrl& url,
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));

  // Creates or replaces the host's entry with all slots free; it expires
  // after ttlSeconds unless refreshed.
  void registerHost(const std::string& id, const std::string& address, unsigned slots,
                    unsigned ttlSeconds);
  // Re-creates the entry of a host whose entry expired while it ran (a
  // missed heartbeat): the slots its running jobs hold stay taken. Returns
  // how many that is.
  unsigned restoreHost(const std::string& id, const std::string& address, unsigned slots,
                       unsigned ttlSeconds);
  // Pushes the expiry back; false when the entry has already expired.
  bool refreshHost(const std::string& id, unsigned ttlSeconds);
  // Marks the host as taking no new work; claims on it fail from now on.
  void drainHost(const std::string& id);
  void deregisterHost(const std::string& id);
  // Live hosts, sorted by id.
  std::vector<HostRecord> hosts();

  // Takes `count` free slots of the host at once, or none.
  ClaimOutcome claimSlots(const std::string& hostId, unsigned count);

  // Appends a job to the FIFO queue and returns its id. The job holds its
  // place for `lease`; its client renews the lease while it waits, so a
  // job whose client died stops blocking the queue once the lease runs out.
  uint64_t submitJob(const std::string& name, const std::string& app, unsigned ranks,
                     std::chrono::milliseconds lease = kQueuedJobLease);
  // Extends a queued job's lease by `lease` from now; false when the job
  // has no lease left to extend (it was dropped, or has started).
  bool renewQueuedJob(uint64_t jobId, std::chrono::milliseconds lease = kQueuedJobLease);
  // renewQueuedJob and a read of the queue's head in one round trip: the
  // head's id (0: the queue is empty), or nullopt when the lease is gone.
  std::optional<uint64_t> renewQueuedJobAndReadHead(
      uint64_t jobId, std::chrono::milliseconds lease = kQueuedJobLease);
  // Blocks until the queued job has reached the head of the queue or slots
  // were freed while it was there (a wake token, taken by this call), or
  // for `timeout` (under the connection's), whichever comes first; true
  // when woken.
  bool waitForTurn(uint64_t jobId, std::chrono::milliseconds timeout);
  // Removes the queue's head if its lease ran out (its client is gone);
  // returns the removed job's id.
  std::optional<uint64_t> dropAbandonedQueueHead();
  // Starts the job at the head of the queue on `hostId` if all its ranks fit
  // there, taking the slots; nullopt when the queue is empty or it does not
  // fit.
  std::optional<JobRecord> startQueuedJob(const std::string& hostId);
  // Starts the job at the head of the queue over several hosts, `parts`
  // naming the host and rank count of each run of consecutive ranks, in
  // rank order (a host whose ranks are not consecutive comes once per
  // run), taking all their slots at once and writing the job's rank ->
  // host table; nullopt when the queue is empty or a host lacks the slots.
  std::optional<JobRecord> startQueuedJobAcross(
      const std::vector<std::pair<std::string, unsigned>>& parts);
  // Removes a queued or running job, returning a running job's slots. With
  // `hostId`, a job spread over hosts returns only that host's part, and
  // goes away with its last part.
  void finishJob(uint64_t jobId, const std::string& hostId = "");
  // A live move of a rank of a spread job into its running part on
  // `hostId`: takes one free slot of the host for that part at once (the
  // part's count in synergy:job:<id>:parts grows), or nothing, with `why`.
  ClaimOutcome claimMovedRankSlot(uint64_t jobId, const std::string& hostId, std::string& why);
  // Gives back the slot of one rank that left the job's part on `hostId`
  // (the move's source; or the target, when the move did not take the slot
  // it claimed): the part's count shrinks, and the part's entry goes with
  // its last rank, whose end then frees nothing more. With `rank`, its
  // entry in the rank -> host table becomes `newHost` in the same step.
  // False when the part had no slot left to give (it ended first).
  bool returnMovedRankSlot(uint64_t jobId, const std::string& hostId,
                           std::optional<uint32_t> rank = std::nullopt,
                           const std::string& newHost = "");
  // The host of each rank of a job spread over hosts.
  std::vector<std::string> rankHosts(uint64_t jobId);
  // Publishes where part `part` of a spread job of `partCount` parts takes
  // connections from the others, wakes the other parts' waitForJobEndpoints,
  // and returns every endpoint published so far.
  std::map<uint32_t, std::string> publishJobEndpoint(uint64_t jobId, uint32_t part,
                                                     uint32_t partCount,
                                                     const std::string& endpoint);
  std::map<uint32_t, std::string> jobEndpoints(uint64_t jobId);
  // Blocks until another part of the job has published its endpoint since
  // the last call (a wake token, taken by this call) or for `timeout`
  // (under the connection's), whichever comes first; true when woken.
  bool waitForJobEndpoints(uint64_t jobId, uint32_t part, std::chrono::milliseconds timeout);
  std::vector<JobRecord> queuedJobs();
  std::vector<JobRecord> runningJobs();

 private:
  std::optional<JobRecord> readJob(const std::string& id);
  // The jobs that still exist, in one round trip.
  std::vector<JobRecord> readJobs(const std::vector<std::string>& ids);
  RedisConnection redis_;
};

}  // namespace synergy::cluster

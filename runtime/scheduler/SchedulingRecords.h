//===- SchedulingRecords.h - What the background scheduler keeps in Redis ---===//
//
// The records behind synergyd's background migration decisions
// (BackgroundScheduler.h), beside the cluster state (cluster/ClusterState.h):
//
//   synergy:job:<id>:scheduling  hash policy, movable (0|1), moved-at and
//                                decided-at (ms since the epoch, 0: never);
//                                written by the job's client once it is
//                                placed, decided-at by the scheduler
//   synergy:scheduler:decisions  list, newest first, of the last
//                                kDecisionLogLength decisions:
//                                "<ms> <job> <policy> <hosts before> <placement>"
//   synergy:scheduler:leader     the host id of the one synergyd that decides
//                                for every job; a lease with an expiry
//
// All three are read as hostile: a malformed record is refused (readers
// throw StateStoreError, or skip a malformed log entry) and nothing in it
// reaches a terminal unfiltered.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/Migration.h"
#include "cluster/RedisConnection.h"

namespace synergy::scheduler {

constexpr size_t kDecisionLogLength = 20;

struct JobScheduling {
  std::string policy;
  bool movable = false;
  int64_t movedAtMs = 0;
  int64_t decidedAtMs = 0;
};

// Milliseconds since the epoch: the records' clock, shared by the hosts.
int64_t wallClockMs();

// The client's side: the record of job `jobId` as it starts running.
void writeJobScheduling(cluster::RedisConnection& redis, uint64_t jobId,
                        const JobScheduling& scheduling);
// Nullopt when the job has none (it is not movable); throws
// StateStoreError when it is malformed.
std::optional<JobScheduling> readJobScheduling(cluster::RedisConnection& redis, uint64_t jobId);

struct LoggedDecision {
  int64_t atMs = 0;
  uint64_t jobId = 0;
  std::string policy;
  unsigned hostsBefore = 0;
  cluster::HostCounts placement;
};

// Writes the decision's migration request (cluster::requestMigration, as
// `synergy-cluster migrate` does), the job's decided-at and the log entry.
void recordDecision(cluster::RedisConnection& redis, const LoggedDecision& decision,
                    const cluster::MigrationRequest& request);
// The log, newest first; malformed entries are left out.
std::vector<LoggedDecision> recentDecisions(cluster::RedisConnection& redis);

// Takes or renews the deciding lease for `hostId` for `lease`; false while
// another host holds it.
bool holdSchedulerLease(cluster::RedisConnection& redis, const std::string& hostId,
                        std::chrono::milliseconds lease);
// The host that holds the lease, nullopt when none does (or the entry is
// not a valid host id).
std::optional<std::string> schedulerLeaseHolder(cluster::RedisConnection& redis);
// Gives the lease up if `hostId` holds it (a daemon that stops).
void releaseSchedulerLease(cluster::RedisConnection& redis, const std::string& hostId);

}  // namespace synergy::scheduler

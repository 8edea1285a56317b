//===- BackgroundScheduler.cpp - synergyd's background migration decisions --===//
//
// This file implements BackgroundScheduler.h. A round reads the hosts, the
// running jobs, each job's scheduling and migration records, decides with
// decideMigrations and writes what it decided. The round's connections are
// the thread's own, apart from the daemon's heartbeat connection.
//
//===----------------------------------------------------------------------===//
#include "scheduler/BackgroundScheduler.h"

#include <algorithm>
#include <optional>

#include "cluster/ClusterState.h"
#include "scheduler/SchedulingRecords.h"

namespace synergy::scheduler {

namespace {

// The lease outlives three rounds, so one slow round does not lose it, and
// never less than this.
constexpr std::chrono::milliseconds kShortestLease{2000};

// What the decision needs of one running job; a job whose records cannot
// be read is seen as not movable (its claims, if any, are still counted).
RunningJobView viewOf(cluster::ClusterState& state, cluster::RedisConnection& redis,
                      const cluster::JobRecord& job) {
  RunningJobView view;
  view.job = job;
  view.rankHosts = state.rankHosts(job.id);
  if (view.rankHosts.empty()) view.rankHosts.assign(job.ranks, job.host);
  try {
    if (std::optional<cluster::MigrationRequest> request = cluster::readMigration(redis, job.id)) {
      view.migrationState = request->state;
      view.migrationClaims = request->claims;
      view.migrationMovedAtMs = request->movedAtMs;
    }
    if (std::optional<JobScheduling> scheduling = readJobScheduling(redis, job.id)) {
      view.policy = scheduling->policy;
      view.movable = scheduling->movable;
      view.movedAtMs = scheduling->movedAtMs;
      view.decidedAtMs = scheduling->decidedAtMs;
    }
  } catch (const cluster::StateStoreError&) {
    view.movable = false;
  }
  return view;
}

}  // namespace

BackgroundScheduler::BackgroundScheduler(BackgroundSchedulerOptions options)
    : options_(std::move(options)), thread_([this] { run(); }) {}

BackgroundScheduler::~BackgroundScheduler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stopRequested_.notify_all();
  thread_.join();
}

void BackgroundScheduler::decideOnce(cluster::ClusterState& state,
                                     cluster::RedisConnection& redis) {
  auto lease = std::max(kShortestLease, 3 * options_.interval);
  leading_ = holdSchedulerLease(redis, options_.hostId, lease);
  if (!leading_) return;
  std::vector<cluster::HostRecord> hosts = state.hosts();
  std::vector<RunningJobView> views;
  for (const cluster::JobRecord& job : state.runningJobs())
    views.push_back(viewOf(state, redis, job));
  int64_t now = wallClockMs();
  for (const MigrationDecision& decision :
       decideMigrations(hosts, views, options_.limits, now)) {
    recordDecision(redis,
                   {now, decision.jobId, decision.policy, unsigned(decision.hostsBefore),
                    decision.request.placement},
                   decision.request);
    options_.log("scheduler: job " + std::to_string(decision.jobId) + " (" + decision.policy +
                 ", on " + std::to_string(decision.hostsBefore) + " hosts): asked to move " +
                 decision.request.what + " at its next barrier control point");
  }
}

void BackgroundScheduler::run() {
  std::optional<cluster::ClusterState> state;
  std::optional<cluster::RedisConnection> redis;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    try {
      if (!state) state.emplace(options_.state);
      if (!redis) redis.emplace(options_.state, std::chrono::milliseconds(2000));
      decideOnce(*state, *redis);
      lastError_.clear();
    } catch (const cluster::StateStoreError& e) {
      state.reset();
      redis.reset();
      if (lastError_ != e.what()) options_.log(std::string("scheduler: ") + e.what());
      lastError_ = e.what();
    }
    lock.lock();
    stopRequested_.wait_for(lock, options_.interval, [this] { return stopping_; });
  }
  lock.unlock();
  if (redis && leading_) {
    try {
      releaseSchedulerLease(*redis, options_.hostId);
    } catch (const cluster::StateStoreError&) {
      // The lease then runs out on its own.
    }
  }
}

}  // namespace synergy::scheduler

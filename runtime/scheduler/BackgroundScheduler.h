//===- BackgroundScheduler.h - synergyd's background migration decisions ----===//
//
// Every synergyd runs one: a thread that, every `interval`, compares each
// running job's placement with what its policy would choose now and asks
// for the moves that gain something (MigrationDecisions.h), as requests in
// the cluster state that the job applies at its next barrier control point
// (cluster/Migration.h). When slots free up, fragmented jobs are so
// consolidated.
//
// One daemon decides for the whole cluster at a time: the holder of a lease
// in Redis (SchedulingRecords.h), renewed every round and lost with its
// daemon after three rounds (at least 2 s). One decider for all jobs rather
// than, say, the host of each job's part 0, because the moves of different
// jobs compete for the same free slots: a single decider takes each move's
// claims off the free slots before it weighs the next, so no two jobs are
// promised one slot. Decisions are rate-limited (DecisionLimits), and each
// is logged by the daemon and in the cluster state, which `synergy-cluster
// status` shows.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/ClusterState.h"
#include "cluster/RedisConnection.h"
#include "scheduler/MigrationDecisions.h"

namespace synergy::scheduler {

struct BackgroundSchedulerOptions {
  cluster::StateUrl state;
  std::string hostId;
  std::chrono::milliseconds interval{2000};
  DecisionLimits limits;
  std::function<void(const std::string&)> log;
};

class BackgroundScheduler {
 public:
  // Starts deciding at once; a state store that cannot be reached is
  // logged (once per distinct error) and tried again the next round.
  explicit BackgroundScheduler(BackgroundSchedulerOptions options);
  // Stops the thread and gives the lease up, so that another daemon takes
  // over without waiting for it to expire.
  ~BackgroundScheduler();
  BackgroundScheduler(const BackgroundScheduler&) = delete;
  BackgroundScheduler& operator=(const BackgroundScheduler&) = delete;

 private:
  void run();
  // One round: the lease, then the decisions; throws StateStoreError.
  void decideOnce(cluster::ClusterState& state, cluster::RedisConnection& redis);

  BackgroundSchedulerOptions options_;
  std::mutex mutex_;
  std::condition_variable stopRequested_;
  bool stopping_ = false;
  bool leading_ = false;
  std::string lastError_;
  std::thread thread_;
};

}  // namespace synergy::scheduler

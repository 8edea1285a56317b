//===- MigrationDecisions.cpp - Which running jobs the scheduler moves ------===//
//
// This file implements MigrationDecisions.h.
//
//===----------------------------------------------------------------------===//
#include "scheduler/MigrationDecisions.h"

#include <algorithm>
#include <map>

#include "scheduler/PlacementPolicy.h"

namespace synergy::scheduler {

namespace {

// Takes `claims` off the free slots of their hosts.
void takeClaims(std::vector<cluster::HostRecord>& hosts, const cluster::HostCounts& claims) {
  for (const auto& [id, slots] : claims)
    for (cluster::HostRecord& host : hosts)
      if (host.id == id) host.freeSlots -= std::min(host.freeSlots, slots);
}

// `rankHosts` as one share per host, with all its ranks, in the order of
// each host's first rank: a job whose ranks on a host are not consecutive
// (after a move, Migration.h) spans as many hosts as it has shares, so it
// is not taken for more fragmented than it is.
std::vector<HostShare> sharesOf(const std::vector<std::string>& rankHosts) {
  std::vector<HostShare> shares;
  for (const std::string& host : rankHosts) {
    auto known = std::find_if(shares.begin(), shares.end(),
                              [&](const HostShare& share) { return share.hostId == host; });
    if (known != shares.end())
      ++known->ranks;
    else
      shares.push_back({host, 1});
  }
  return shares;
}

bool moving(const std::string& state) { return state == "requested" || state == "stopping"; }

// Whether the job may be considered this round (the header's list).
bool mayDecide(const RunningJobView& view, const DecisionLimits& limits, int64_t nowMs) {
  if (!view.movable || moving(view.migrationState)) return false;
  int64_t movedAtMs = std::max(view.movedAtMs, view.migrationMovedAtMs);
  if (movedAtMs && nowMs - movedAtMs < limits.coolDownMs) return false;
  if (view.migrationState == "aborted" && view.decidedAtMs &&
      nowMs - view.decidedAtMs < limits.abortBackoffMs)
    return false;
  return true;
}

}  // namespace

std::vector<MigrationDecision> decideMigrations(const std::vector<cluster::HostRecord>& hosts,
                                                const std::vector<RunningJobView>& jobs,
                                                const DecisionLimits& limits, int64_t nowMs) {
  std::vector<cluster::HostRecord> freeLeft = hosts;
  for (const RunningJobView& view : jobs)
    if (moving(view.migrationState)) takeClaims(freeLeft, view.migrationClaims);

  std::vector<const RunningJobView*> order;
  for (const RunningJobView& view : jobs) order.push_back(&view);
  std::stable_sort(order.begin(), order.end(),
                   [](const RunningJobView* a, const RunningJobView* b) {
                     return a->job.id < b->job.id;
                   });

  std::vector<MigrationDecision> decisions;
  for (const RunningJobView* view : order) {
    if (decisions.size() >= limits.maxPerRound) break;
    if (!mayDecide(*view, limits, nowMs) || view->rankHosts.size() != view->job.ranks) continue;
    std::unique_ptr<PlacementPolicy> policy = createPlacementPolicy(view->policy);
    if (!policy) continue;
    // The other jobs: locality must not see the job beside itself.
    std::vector<cluster::JobRecord> others;
    for (const RunningJobView& other : jobs)
      if (other.job.id != view->job.id) others.push_back(other.job);
    std::vector<HostShare> current = sharesOf(view->rankHosts);
    std::vector<HostShare> wanted =
        policy->placeRunningJob(freeLeft, others, view->job.app, current);
    if (wanted.empty() || wanted.size() >= current.size()) continue;
    cluster::HostCounts placement;
    for (const HostShare& share : wanted) placement.push_back({share.hostId, share.ranks});
    std::string error;
    std::optional<cluster::MigrationRequest> request =
        cluster::planPlacement(view->rankHosts, placement, 0, error);
    if (!request) continue;
    takeClaims(freeLeft, request->claims);
    decisions.push_back({view->job.id, view->policy, current.size(), std::move(*request)});
  }
  return decisions;
}

}  // namespace synergy::scheduler

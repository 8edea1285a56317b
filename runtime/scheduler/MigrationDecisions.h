//===- MigrationDecisions.h - Which running jobs the scheduler moves --------===//
//
// The background scheduler of synergyd (BackgroundScheduler.h) asks, every
// round, which running jobs should move now. This is that decision, kept
// pure: the hosts, the running jobs and what the cluster state remembers of
// each go in, and the moves come out, so that it can be tested on any
// placement without a cluster.
//
// A job is a candidate when its client made it movable (it checkpoints into
// a directory and is no --fragment/--consolidate-at experiment) and
// its policy's placeRunningJob (PlacementPolicy.h) wants it on fewer hosts
// than it spans now: a move must gain something, so a job never moves
// sideways or back. It is left alone while
//
//   - a move of it is requested or under way (its record's state), whose
//     claims also count as taken on the hosts it claims;
//   - it moved less than `coolDown` ago (a restarted job carries the time
//     of its last move, a job moved live its migration record's), so a
//     move is never undone at once;
//   - its last move decided here was aborted (the target filled up before
//     the job's control point) less than `abortBackoff` ago, so an abort is
//     not retried in a loop.
//
// At most `maxPerRound` moves come out of one round, oldest job first; each
// one's claims count as taken for the next, so two moves never count on the
// same free slot.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/ClusterState.h"
#include "cluster/Migration.h"

namespace synergy::scheduler {

// A running job as the decision sees it.
struct RunningJobView {
  cluster::JobRecord job;
  // The host of each rank (ClusterState::rankHosts; every rank on
  // job.host for a job on one host).
  std::vector<std::string> rankHosts;
  std::string policy;
  bool movable = false;
  // Milliseconds since the epoch; 0: never.
  int64_t movedAtMs = 0;
  int64_t decidedAtMs = 0;
  // The state of its migration record (requested, stopping, aborted or
  // done), empty without one, and the slots that record claims.
  std::string migrationState;
  cluster::HostCounts migrationClaims;
  // When that record's move was taken live (its moved-at; 0: it was not):
  // a live move leaves the job's scheduling record alone, and the no-move
  // window runs from the later of the two.
  int64_t migrationMovedAtMs = 0;
};

struct DecisionLimits {
  int64_t coolDownMs = 30000;
  int64_t abortBackoffMs = 60000;
  unsigned maxPerRound = 1;
};

struct MigrationDecision {
  uint64_t jobId = 0;
  std::string policy;
  size_t hostsBefore = 0;
  cluster::MigrationRequest request;
};

std::vector<MigrationDecision> decideMigrations(const std::vector<cluster::HostRecord>& hosts,
                                                const std::vector<RunningJobView>& jobs,
                                                const DecisionLimits& limits, int64_t nowMs);

}  // namespace synergy::scheduler

//===- Migration.h - moving ranks of a spread job at a barrier control point -===//
//
// A migration moves ranks of a running cluster job to other hosts. It is
// asked for in the cluster state, by `synergy-cluster migrate`, by the
// client's `--fragment/--consolidate-at` or by its SYNERGY_FORCE_MIGRATION
// test hook, as one record per job:
//
//   synergy:job:<id>:migration  hash state (requested|stopping|aborted|done),
//                               at (the control point from which it applies,
//                               counted from 1 in this run; 0: the next),
//                               placement ("host:ranks,..." the runs of
//                               consecutive ranks on one host after the
//                               move, in rank order; a host whose ranks
//                               are not consecutive comes once per run,
//                               "h4:1,h3:1,h4:1"), claims
//                               ("host:slots,..." the free slots each target
//                               must have), what (for messages), reason,
//                               moved-at (ms since the epoch: when a move
//                               taken live ended, for the background
//                               scheduler's no-move window)
//
// The job applies it at a barrier control point (CheckpointAgreement.h):
// part 0 reads the record at each one, checks that every target still has
// the free slots the move claims (otherwise the record becomes `aborted`
// with the reason, and the job goes on where it is), and decides a
// job-wide suspension, taken only when no MPI frame is in flight. Every
// part then captures its ranks with the checkpoint code (memory, globals,
// WASI files and offsets, MPI state) into the job's checkpoint directory;
// once part 0 has committed that checkpoint the record becomes `stopping`
// and every part ends with kMigratedExitStatus, all its output forwarded.
// The client sees that status with a `stopping` record, marks it `done`,
// and starts the job again from that checkpoint on the record's placement,
// each part restoring its ranks and rewinding them into the collective.
//
// So a migration on this path restarts every rank from the snapshot, the
// ones that do not move as well. One whose ranks all go into running parts
// of the job takes the live path instead (planLiveMoves below,
// CheckpointAgreement.h), with no restart. The restarted job has one
// part per host, with whatever set of ranks the placement gives it
// (JobPart.h). A checkpoint that cannot be resumed (a descriptor it does
// not record) aborts the migration before any part stops.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/ClusterState.h"
#include "cluster/RedisConnection.h"

namespace synergy::cluster {

// The status every part of a job ends with when it stops to be moved.
constexpr int kMigratedExitStatus = 75;

// Host ids and rank counts in rank order (a placement) or per host (claims).
using HostCounts = std::vector<std::pair<std::string, unsigned>>;

struct MigrationRequest {
  std::string state;  // requested, stopping, aborted or done
  uint64_t at = 0;
  HostCounts placement;
  HostCounts claims;
  std::string what;
  std::string reason;
  // When its last live step was taken (ms since the epoch); 0: none was.
  int64_t movedAtMs = 0;
};

// "h2:1,h3:2"; and back, false unless every host id is valid, every count
// at least 1 and the counts add up to at most kMaxJobRanks.
std::string formatHostCounts(const HostCounts& counts);
bool parseHostCounts(const std::string& text, HostCounts& counts);

// The record of job `jobId`, or nullopt when there is none; throws
// StateStoreError when it is malformed.
std::optional<MigrationRequest> readMigration(RedisConnection& redis, uint64_t jobId);
// Writes the record of a new request (state `requested`), replacing any.
void requestMigration(RedisConnection& redis, uint64_t jobId, const MigrationRequest& request);
// Sets the record's state and reason.
void setMigrationState(RedisConnection& redis, uint64_t jobId, const std::string& state,
                       const std::string& reason = "");

// The request that puts `ranks` (world ranks) of a job placed as
// `rankHosts` (the host of each rank) on host `target`, applied from
// control point `at`; nullopt with a one-line `error` when a rank is out of
// range or `target` is not among `hosts`. The ranks left on a host need
// not be consecutive.
std::optional<MigrationRequest> planMove(const std::vector<std::string>& rankHosts,
                                         const std::vector<unsigned>& ranks,
                                         const std::string& target,
                                         const std::vector<HostRecord>& hosts, uint64_t at,
                                         std::string& error);
// The request that gathers a job placed as `rankHosts` on the fewest
// hosts: all its ranks on the host of the job with the most ranks among
// those with the slots for all of them. Nullopt with `error` when the job
// is on one host already or no host of it has the slots.
std::optional<MigrationRequest> planConsolidation(const std::vector<std::string>& rankHosts,
                                                  const std::vector<HostRecord>& hosts,
                                                  uint64_t at, std::string& error);
// The request that moves a job placed as `rankHosts` to `placement` (each
// host once, in rank order; as many ranks), from control point `at`: the
// background scheduler's (scheduler/MigrationDecisions.h). Nullopt with
// `error` when the counts differ, a host comes twice or nothing would move.
std::optional<MigrationRequest> planPlacement(const std::vector<std::string>& rankHosts,
                                             const HostCounts& placement, uint64_t at,
                                             std::string& error);
// `ranks` cut into `fragments` near-equal runs over the live undrained
// hosts with the most free slots (ties by id), for `--fragment K`; empty
// when fewer than `fragments` hosts have the slots for their run.
HostCounts fragmentedPlacement(const std::vector<HostRecord>& hosts, unsigned ranks,
                               unsigned fragments);

// A request the job can take on the live path (CheckpointAgreement.h's
// live round): its ranks into running parts of the job on other hosts,
// with no restart, one rank a live round, in rank order. The job is placed
// as `rankHosts` (the host of each rank) and `partOfRanks` (its part);
// each moving rank must go to a host where a part of the job keeps a rank
// that does not move (its target). Part 0 runs the agreement: it must keep
// a rank unless `part0MayLeave` (a job that checkpoints only to be moved,
// which needs no agreement once no move is left to take), and then its
// steps come last, the one that empties it the very last. Nullopt with
// `why` (for the note that the move takes the restart path) otherwise.
struct LiveMovePlan {
  uint32_t rank = 0;
  uint32_t source = 0, target = 0;
};
std::optional<std::vector<LiveMovePlan>> planLiveMoves(const MigrationRequest& request,
                                                       const std::vector<std::string>& rankHosts,
                                                       const std::vector<uint32_t>& partOfRanks,
                                                       std::string& why,
                                                       bool part0MayLeave = false);

// SYNERGY_FORCE_MIGRATION=RANKS@N:HOST (RANKS "1" or "1,3"), a test hook:
// moves those ranks to HOST at control point N. False with `error` when
// malformed.
struct ForcedMigration {
  std::vector<unsigned> ranks;
  uint64_t at = 0;
  std::string host;
};
bool parseForcedMigration(const std::string& text, ForcedMigration& forced, std::string& error);

// Part 0's side: at each barrier control point, whether a migration is to
// be applied now, and its outcome once the checkpoint is (or is not)
// committed.
class MigrationWatch {
 public:
  MigrationWatch(const StateUrl& state, uint64_t jobId) : state_(state), jobId_(jobId) {}
  // At control point `round` of this run: true when a request applies now
  // and every target has the slots it claims, counted against the job's
  // rank -> host record as it stands (a move some of whose steps were
  // taken live holds those ranks' slots on their target already). After a
  // read that found no request, the record is not read again for 50 ms.
  // When a target lacks them the record becomes `aborted` and a note goes
  // to stderr; a state store that cannot be read is noted once and taken
  // as no request. A request that applies only from a later control point
  // sets `pendingAt` to it.
  bool dueAt(uint64_t round, uint64_t* pendingAt = nullptr);
  // The suspension for the migration is over: `stop` when its checkpoint
  // is committed and resumable (the record becomes `stopping`), else the
  // record becomes `aborted` with `reason`, noted on stderr. Whether the
  // job stops: not when the record cannot be written.
  bool finished(bool stop, std::string reason);
  // The request that applied at control point `round` was not taken there
  // (`why`, CheckpointAgreement.h): recorded as the record's reason, which
  // the client notes when the job ends with its move still pending. A
  // store that cannot be written loses only that.
  void notTaken(uint64_t round, const std::string& why);
  // The request was taken on the live path: the record becomes `done` with
  // `how` as its reason and the time as its moved-at, so that no control
  // point applies it again and the background scheduler leaves the job
  // alone for its no-move window. A store that cannot be written is noted.
  void takenLive(const std::string& how);
  // The request the last read found pending (`requested`), whether it
  // applies yet or not; nullopt when it found none.
  const std::optional<MigrationRequest>& request() const { return request_; }

 private:
  StateUrl state_;
  uint64_t jobId_;
  std::optional<RedisConnection> redis_;
  std::optional<ClusterState> cluster_;
  std::string what_;
  std::optional<MigrationRequest> request_;
  bool storeFailed_ = false;
  // No request was pending at the last read: the next waits until then.
  std::chrono::steady_clock::time_point quietUntil_;
};

}  // namespace synergy::cluster

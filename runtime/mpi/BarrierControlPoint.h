//===- BarrierControlPoint.h - what may happen to ranks at a barrier -------===//
//
// A barrier control point is a collective on MPI_COMM_WORLD (MPI_Barrier,
// Bcast, Reduce, Allreduce, Gather, Allgather) once it has completed: every
// rank of a job stands at the same call, so it is where a job can be
// suspended as a whole: for a checkpoint now, for migration later. The
// launcher puts a BarrierControlPoint on the World; each of those calls
// then asks it whether the ranks suspend, and every rank gets the same
// answer (the decision is taken once per control point, by the last rank
// to ask, after the job's quiescence check has found no message in
// flight). A suspended rank unwinds with Asyncify (Granule::beginUnwind),
// and each rank's snapshot reaches suspended() before the rank is rewound.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "util/FunctionRef.h"

namespace synergy::granule {
class Granule;
}
namespace synergy::snapshot {
class Snapshot;
}

namespace synergy::mpi {

// What a rank waiting for the others at a control point is blocked in, in
// the deadlock report, on one host or over several.
inline constexpr const char* kControlPointWait = "a barrier control point's agreement";

class BarrierControlPoint {
 public:
  virtual ~BarrierControlPoint() = default;
  // Called by every rank of the job after the collective; `canSuspend(why,
  // canMoveLive)` says whether this rank could be unwound now (`why` when
  // not), and sets `canMoveLive` when it could not for a checkpoint but could
  // for a live move, which carries its pending receives and completed
  // requests (RankState::pendingRequestsCarried). It is
  // called only at a control point where the ranks meet (not at one an
  // interval's rank passes on its own), before any lock of the control
  // point's is taken: it may call noteStateNotCheckpointed. Returns the
  // job's decision, the same for every rank.
  virtual bool agreeToSuspend(
      int worldRank, util::FunctionRef<bool(std::string& why, bool& canMoveLive)> canSuspend) = 0;
  // A suspended rank's snapshot (memory and globals, the unwind buffer in
  // it), on that rank's thread, before it is rewound into a fresh instance;
  // the granule's memory still holds the same bytes. Null, with `error`,
  // when the snapshot could not be taken; null without one when the rank
  // resumes in place (resumesInPlace()), its memory and globals being the
  // granule's own until this returns. False with `error` ends the rank
  // with a trap.
  virtual bool suspended(int worldRank, granule::Granule& granule,
                         const snapshot::Snapshot* snapshot, std::string& error) = 0;
  // Whether a suspended rank rewinds in the instance it unwound from, with
  // no snapshot taken: it stays on this host and this process, so nothing
  // needs a fresh instance (Granule::setSuspensionHandler).
  virtual bool resumesInPlace(int worldRank) {
    (void)worldRank;
    return false;
  }

  // Called by every rank from agreeToSuspend's `canSuspend`, with what of this rank's
  // state a snapshot does not hold (a communicator it made),
  // empty when nothing: such a checkpoint still serves a rewind in this
  // process, but a `--resume` from its file must be refused.
  // `notMovable`: the same for a live move, which carries more (the rank's
  // requests: RankState::objectsNotMovable).
  virtual void noteStateNotCheckpointed(int worldRank, const std::string& what,
                                        const std::string& notMovable) {
    (void)worldRank;
    (void)what;
    (void)notMovable;
  }
  // The launcher's: forwards every byte the ranks have written so far to
  // its own stdout and stderr (called while every rank is suspended).
  virtual void setOutputDrain(std::function<void()> drain) { (void)drain; }
  // The launcher's: how many bytes of the ranks' stdout it has written so
  // far, all of them once the drain has run.
  virtual void setOutputCount(std::function<uint64_t()> count) { (void)count; }
  // The launcher's: why the job cannot be suspended now although every
  // rank can (a message still waits in some rank's mailbox), empty when
  // nothing is in flight. Called by the deciding rank while every rank of
  // the job stands in agreeToSuspend, so no rank can send meanwhile.
  virtual void setQuiescenceCheck(std::function<std::string()> check) { (void)check; }
  // The launcher's: which rank's output ends mid-line (why, empty when
  // none), read the same way. A checkpoint there would cut the line in two
  // around other ranks' output, so it is not taken; a live move is (its
  // rank carries its unfinished lines: setOutputHandOver).
  virtual void setUnfinishedLineCheck(std::function<std::string()> check) { (void)check; }
  // The launcher's output forwarding across a live move between parts.
  // `hold(worldRank)`, on the source once the rank departed: forwards the
  // rank's whole lines to the launcher's stdout and stderr, waits until
  // whoever reads those has read them, and returns its unfinished last
  // lines (stdout, stderr), kept back here until the rank leaves (or goes
  // on here, the move not taken). `seed(worldRank, tails)`, on the target
  // before the rank is adopted: its streams there start with them.
  // The most of each stream's unfinished line a move carries (the source
  // forwards a longer one, cut): transport::kMaxRankOutputTailBytes.
  static constexpr size_t kMaxCarriedTailBytes = 64 << 10;
  struct OutputHandOver {
    std::function<std::array<std::string, 2>(int worldRank)> hold;
    std::function<void(int worldRank, const std::array<std::string, 2>& tails)> seed;
  };
  virtual void setOutputHandOver(OutputHandOver handOver) { (void)handOver; }
  // The launcher's: how a rank waits for the others inside agreeToSuspend
  // and suspended(). `wait(worldRank, done)` sleeps until `done()` (which
  // reads only atomics) holds, counted as blocked by the job's deadlock
  // check so that a rank that never reaches the collective is reported, not
  // waited for forever; it returns false when the job aborted. Whoever makes
  // `done()` true calls `wake(worldRank)` after.
  struct RankWaiting {
    std::function<bool(int worldRank, util::FunctionRef<bool()> done)> wait;
    std::function<void(int worldRank)> wake;
  };
  virtual void setRankWaiting(RankWaiting waiting) { (void)waiting; }
  // Called for each rank once its granule is instantiated, before any rank
  // runs; false with `error` stops the job (a resumed job restores here).
  virtual bool prepareRank(int worldRank, granule::Granule& granule, std::string& error) {
    (void)worldRank;
    (void)granule;
    (void)error;
    return true;
  }
  // A live move: a rank whose granule departed in suspended()
  // (Granule::depart) arrives again in `granule`, a fresh instance of the
  // module on a new thread, its stdio already on the rank's output
  // streams; the control point restores the rank into it and starts its
  // rewind into the collective it left. False with `error` ends the job.
  virtual bool arrive(int worldRank, granule::Granule& granule, std::string& error) {
    (void)granule;
    error = "rank " + std::to_string(worldRank) + " departed, and nothing here can take it";
    return false;
  }
  // A live move between the parts of a job spread over hosts (issue 22):
  // the launcher's way to start a rank this part did not launch, set
  // before any rank runs. `adopt(worldRank, error)` makes the rank's output
  // streams and starts its thread, which makes a fresh instance and calls
  // arrive() there; false with `error` when it cannot (a rank out of the
  // job's range or already here). The control point calls it for the rank
  // it has taken in, with its lock held: it does not block.
  using RankAdoption = std::function<bool(int worldRank, std::string& error)>;
  virtual void setRankAdoption(RankAdoption adopt) { (void)adopt; }
  // After arrive() failed for `worldRank`: whether the rank left this part
  // for another (part 0's word that the move was taken). Its thread then
  // ends without the rank finishing here, and no error is raised.
  virtual bool rankLeft(int worldRank) {
    (void)worldRank;
    return false;
  }
};

}  // namespace synergy::mpi

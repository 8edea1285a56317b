//===- CheckpointAgreement.h - one checkpoint decision for a spread job ----===//
//
// checkpoint::HostParts over the connections of MpiPeerLink. Part 0 (the
// part of world rank 0) decides for the whole job, so that every part
// suspends at the same control point or none does:
//
//  0. At an interval the job's ranks meet only where part 0 names: when
//     its checkpoint falls due (or a migration applies) at a control point
//     of one of its ranks, it holds every part's ranks at their next
//     control point and asks each part (CheckpointDecision kind 5, answered
//     on the I/O thread by a CheckpointVote of phase 5) the last control
//     point its ranks have gone on past; the meeting is the one after the
//     last of those (kind 6), which no rank has passed and every rank
//     reaches (they are collectives on MPI_COMM_WORLD). Elsewhere a rank
//     only counts the control point: a vote at each was a round trip to
//     part 0 and a barrier of the whole job after every collective. A
//     live move's control point is a meeting too (and the next one, each
//     time part 0 postpones the move), without an ask: every part knows
//     it. At an interval of 0, or while the route switch's test hook names
//     a control point by number, every control point is a meeting.
//  1. At each meeting, once every rank of a part stands in
//     it, the part votes (CheckpointVote): whether its ranks can suspend
//     and its mailboxes are empty, and the MPI frames it has sent to and
//     received from other parts. Part 0 waits for every vote of the round.
//  2. When the checkpoint is due and every part can, the sums of frames
//     sent and received must be equal, and they must still be what each
//     part voted with when part 0 asks again (CheckpointRecount, answered
//     on the part's I/O thread). Every rank of the job stands still from
//     the last vote on, so then there was a moment, the last vote, when
//     every frame sent had been received: nothing in flight. A single
//     round would not do: a frame sent after one part voted can make up
//     for one still in flight to another. While frames are still on the
//     wire (a collective's last frames can be, as the parts vote), part 0
//     asks again, one recount at a time, until two readings in a row are
//     equal and balance, for at most kMaxRecounts recounts or
//     kRecountLimit (CheckpointAgreement.cpp): the same argument then
//     holds for the moment between those two readings.
//  3. Part 0 sends its decision (CheckpointDecision) with the checkpoint's
//     number; each part writes its sections and reports it
//     (CheckpointWritten) with its stdout count, and part 0 commits the
//     file (CheckpointCoordinator.h).
//
// With host-local checkpoint directories (synergyd --checkpoint-root) the
// other parts send their part files to part 0 (CheckpointPartData,
// checkpoint/PartFileChunks.h), and part 0 sends each checkpoint file it
// commits to the mirror, part 1, on another host (CheckpointCopy), which
// checks its checksums, writes it to its own directory crash-safely and
// answers; part 0 counts the checkpoint as written only then, and records
// in the cluster state the hosts of parts 0 and 1 that hold it and each
// part's stdout count (CheckpointHolders.h), for a restart elsewhere.
//
// A migration (Migration.h) rides on the same rounds: part 0 asks its
// MigrationWatch at each, takes the suspension as due when a move applies,
// and announces it (MigrationStop) right before the decision; once the
// checkpoint is over it tells every part whether they all end now to be
// moved (MigrationOutcome) or go on. A migration whose every rank can go
// into a part of the job that keeps a rank (planLiveMoves) is taken live
// instead, one rank a live round (below): part 0 plans each step and tells
// every part of it (kPlanLive) while they are held at the control point
// before the step's, or before any rank runs.
//
// Every frame is checked: a wrong length, a vote to a part other than 0, a
// decision or recount from a part other than 0, or a phase other than 1 or
// 2 drops the connection; so does part data (CheckpointPartData) that
// breaks PartFileChunks.h's rules. Waits end when the job aborts. The rank that
// waits in agree() for the other parts sleeps as blocked in the World, as
// its part's other ranks do in the coordinator, and each frame that
// arrives wakes it on the I/O thread before the next frame is read: a
// deadlock with a part at a control point is reported as on one host, and
// a vote still on its way is never taken for one (its arrival is progress
// before the other part's answer to the deadlock check can come).
//
// PartCheckpoints is what runJobPart adds for `--checkpoint-every`: the
// part's coordinator, for its own ranks, joined through the agreement.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/CheckpointCoordinator.h"
#include "checkpoint/CheckpointedJob.h"
#include "checkpoint/HostParts.h"
#include "checkpoint/PartFileChunks.h"
#include "cluster/JobPart.h"
#include "cluster/Migration.h"
#include "cluster/MpiPeerLink.h"
#include "cluster/RouteSwitch.h"
#include "mpi/MpiJob.h"

namespace synergy::mpi {
class World;
}

namespace synergy::cluster {

class CheckpointAgreement final : public checkpoint::HostParts {
 public:
  explicit CheckpointAgreement(const JobPart& part);

  // The handler of the Checkpoint* frames for MpiPeerLink::join; `world`
  // is this part's.
  MpiPeerLink::CheckpointFrames frames(mpi::World& world);
  // Once the part has joined the others, before any rank runs.
  void attach(MpiPeerLink& link);

  uint32_t partIndex() const override { return part_.partIndex; }
  std::vector<uint32_t> partOfRanks() const override {
    return link_ ? link_->partOfRanks() : part_.routes().partOfRanks();
  }
  uint64_t jobId() const override { return part_.jobId; }
  bool meetsAt(int worldRank, uint64_t controlPoint, bool due) override;
  bool agree(int worldRank, uint64_t controlPoint, bool due, bool canSuspend, bool canMoveLive,
             std::string& why, uint64_t& sequence, bool& aborted) override;
  void sendPartFile(uint64_t sequence, const std::vector<std::string_view>& pieces) override;
  std::optional<std::string> receivedPartFile(uint32_t part, uint64_t sequence) override;
  bool copyCommitted(uint64_t sequence, std::string_view file,
                     const std::vector<checkpoint::PartOutput>& outputs,
                     std::string& error) override;
  // A resumed job whose hosts share no checkpoint directory: part 0 sends
  // the checkpoint file it resumes from to every other part once they have
  // joined (CheckpointCopy again, chunked as CheckpointPartData), and the
  // others restore from those bytes, not from their own directory, which
  // may hold no checkpoint or an older one. expectResumeFile is set before
  // the part joins; receiveResumeFile waits for the whole file (nullopt
  // with `error` when the job aborts or joining failed first), whose
  // checksums the caller checks.
  void expectResumeFile();
  void sendResumeFile(const std::string& file, uint64_t sequence);
  std::optional<std::string> receiveResumeFile(uint64_t& sequence, std::string& error);
  // Joining the other parts failed with `error`: nothing will arrive.
  void joinFailed(const std::string& error);
  // Where this part writes the copy of each checkpoint part 0 sends it
  // (CheckpointCopy); set before the part joins the others.
  void setCopyDirectory(std::string directory) { copyDirectory_ = std::move(directory); }
  // The client's checkpoint directory D (absolute), which a job that runs
  // as one part names to its mirror daemon (CheckpointMirror); set before
  // the first checkpoint. Empty: such a job keeps no second copy.
  void setMirrorName(std::string name) { mirrorName_ = std::move(name); }
  void partWritten(uint64_t sequence, bool written, const checkpoint::PartOutput& output) override;
  bool gatherWritten(uint64_t sequence, std::vector<checkpoint::PartOutput>& outputs,
                     std::string& error) override;
  void checkpointOver(uint64_t sequence, const std::function<bool()>& awaitCommitted) override;
  void departed(int worldRank, std::string_view bytes, double leftMs,
                const std::string& why) override;
  bool awaitDeparture(int worldRank, bool& leaves, std::string& error) override;
  bool takeArrivingRank(int& worldRank, checkpoint::DepartingBytes& bytes) override;
  // RankOutputTails (79): the source sends them to the target, the target
  // keeps the last ones its live move's source sent for its rank.
  void sendOutputTails(int worldRank, const std::array<std::string, 2>& tails) override;
  bool takeOutputTails(int worldRank, std::array<std::string, 2>& tails) override;
  // SYNERGY_TEST_LIVE_MOVE=R@N:P in the daemons' environment (a hidden test
  // hook of issue 22's live move between parts): whether this part holds
  // rank R, the one to depart at control point N (then `rank` and `at`).
  bool liveMoveDepartsHere(int& rank, uint64_t& at) const;
  // Called when part 0 plans a live move of this part's rank `rank` at
  // control point `at` (a move asked for in the cluster state; kPlanLive),
  // before any of the part's ranks can reach it: the coordinator departs
  // the rank there. On the I/O thread, or on part 0's rank in agree().
  void setLiveMovePlanned(std::function<void(int, uint64_t)> planned) {
    livePlanned_ = std::move(planned);
  }
  void setGrantCount(size_t grants) { grantCount_ = grants; }
  // Part 0's: why the checkpoint just committed would be refused by the
  // parts that resume it (empty: it would not); a move stops the job only
  // when it is empty.
  void setResumeCheck(std::function<std::string()> check) { resumeCheck_ = std::move(check); }
  // This part was restored from a checkpoint (only a first run takes the
  // HostDeathHook.h test step checkpoint-copied, not its restart).
  void setResumed(bool resumed) { resumed_ = resumed; }
  // The job checkpoints only to be moved (kMoveOnlyCheckpointIntervalSeconds,
  // JobMessages.h): part 0 may then give up its last rank in a live move
  // (planLiveMoves' part0MayLeave) and leave the job, as any part that
  // empties does. No checkpoint is due before the move, and none can be
  // asked after it, when no part runs the agreement: a later move takes no
  // path (its request stays pending, and the client notes it at the end).
  void setMovesOnly(bool movesOnly) { movesOnly_ = movesOnly; }

 private:
  struct Vote {
    uint64_t round = 0;
    bool canSuspend = false;
    uint64_t sent = 0, received = 0;
    std::string why;
    // Only an unfinished output line keeps the part from suspending: a
    // live round may go on (byte 2 in the vote's can-suspend place).
    bool canMoveLive = false;
  };
  struct Decision {
    uint64_t round = 0;
    bool suspend = false;
    uint64_t sequence = 0;
    std::string why;
    uint8_t kind = 0;  // the frame's: 0, 1 (suspend), 2-5 (the live round's)
  };
  struct Written {
    uint64_t sequence = 0;
    bool written = false;
    uint64_t stdoutBytes = 0;
  };
  // What part 0 knows of part p.
  struct PartSlot {
    std::optional<Vote> vote, recount;
    bool recountAsked = false;  // a recount is outstanding: only then is one taken
    bool askOutstanding = false;  // part 0's ask for a meeting awaits its answer
    std::optional<Written> written;
    checkpoint::PartFileAssembly partFile;  // its CheckpointPartData
    size_t ranks = 0;                       // the world ranks it holds
    // Part 0's: the part's last rank left it in a live move, and the part
    // left the job: it votes no more, its frame counts stay as they were
    // when the move's round settled them (it sends and receives no MPI
    // message after), and no checkpoint is taken (its output offset and
    // part file would be missing).
    bool gone = false;
    uint64_t goneSent = 0, goneReceived = 0;
  };

  // CheckpointDecision kinds beyond a round's: part 0 asks every part where
  // its ranks stand, then names the meeting.
  static constexpr uint8_t kAskMeeting = 5;
  static constexpr uint8_t kMeetAt = 6;
  // A live move's target takes the rank in from the section it checked.
  static constexpr uint8_t kTakeIn = 7;
  // Part 0 plans a live move for every part: its round (the frame's) is
  // the control point it is taken at, its sequence the rank in its low 32
  // bits, the target part in bits 32-62 and in bit 63 whether more steps
  // of the move follow. Every part meets at that control point
  // (liveMeetAt_), and, when more steps follow, at every control point
  // from then on (everyPoint_), where part 0 plans the next; the source's
  // coordinator departs the rank there (livePlanned_).
  static constexpr uint8_t kPlanLive = 8;
  // Every part goes on: the live move was postponed to the next control
  // point, which becomes a meeting (liveMeetAt_).
  static constexpr uint8_t kLivePostponed = 9;
  // Part 0, under the lock, at a control point past the last meeting where
  // a checkpoint is due or a migration applies: holds every part's ranks
  // at their next control point and asks each part (kAskMeeting) the last
  // one its ranks have gone on past; finishAskWhenAnswered names the
  // meeting once every answer is in (kMeetAt), and none before control
  // point `notBefore` (a migration's from that one on).
  void askMeeting(uint64_t notBefore = 0);
  void finishAskWhenAnswered();
  bool onFrame(uint32_t from, transport::FrameType type, const std::vector<uint8_t>& payload,
               std::string& reason);
  void sendVote(uint8_t phase, const Vote& vote);
  // Waits under `lock` until `ready` holds; false when the job aborted.
  template <typename Ready>
  bool waitFor(std::unique_lock<std::mutex>& lock, Ready&& ready);
  // The same for world rank `worldRank`, the part's rank in agree(),
  // counted as blocked by the job's deadlock check meanwhile.
  template <typename Ready>
  bool waitAsRank(std::unique_lock<std::mutex>& lock, int worldRank, Ready&& ready);
  // Part 0's: whether every other part's vote (or recount) of `round` is in.
  bool allAnswered(std::optional<Vote> PartSlot::*which, uint64_t round) const;
  // `live`: a live move's round, which an unfinished output line does not
  // hold back (Vote::canMoveLive).
  std::string decide(bool due, const Vote& own, bool live = false);
  // Part 0, at a due round every part can suspend at: recounts until the
  // frame counts are settled (step 2) and sets `why` the job must not
  // suspend (empty: it may); false when the job aborted meanwhile.
  bool settleCounts(std::unique_lock<std::mutex>& lock, int worldRank, uint64_t round,
                    const Vote& own, std::string& why);
  // The route switch's test hook (parseRouteSwitchHook): part 0 switches
  // at round `routeHook_.at`, with `lock` released meanwhile (`settled`:
  // this round's frame counts are settled already); false when the job
  // aborted. And the strays.
  bool switchRoutesAt(std::unique_lock<std::mutex>& lock, int worldRank, uint64_t round,
                      const Vote& own, bool settled);
  void sendStrayRouteFrames(uint64_t round);
  // Part 0's live round (SYNERGY_TEST_LIVE_MOVE=R@N:P, liveMove_), at round
  // `round` once every vote is in and `why` says whether the job may
  // suspend: the source part departs the rank (a CheckpointDecision to it
  // alone; its CheckpointVote of phase 3 says how many bytes left),
  // RankSectionTransfer ships them to the target, which checks them as an
  // arrival would (kind 4; its vote of phase 4), and part 0 tells the
  // source where the rank goes on (CheckpointDecision kind 2: it arrives
  // there again; 3: it left) before it releases the other parts, which
  // were held at this control point meanwhile. Returns false (the job
  // goes on unsuspended); `aborted` when the job ended meanwhile.
  bool liveRound(std::unique_lock<std::mutex>& lock, int worldRank, uint64_t round,
                 std::string& why, bool& aborted);
  void sendDecision(uint32_t part, uint64_t round, uint8_t kind, uint64_t sequence,
                    const std::string& why);
  // The rest of the live round once the source's rank left (`left`, its
  // phase 3 vote; `bytes` its state when part 0 is the source, which
  // lends them itself): ship, the target's check, part 0's word to the
  // source, its note, and the release of every other part. False when
  // the job ended meanwhile.
  bool finishLiveRound(std::unique_lock<std::mutex>& lock, int worldRank, const Vote& left,
                       const std::string_view* bytes);
  // The live move's target (part 0's CheckpointDecision of kind 4): takes
  // the section that landed for the move of `round` and checks it as an
  // arrival would (decodeDepartingRank: its CRC-32C, every record); why
  // it could not arrive here, empty when it could. Without the lock.
  std::string checkLanded(uint64_t round);
  // Part 0's, without the lock: whether `request` (asked for in the
  // cluster state; its first step at control point `at`) takes the live path (planLiveMoves, against the job's
  // rank -> host record and the table in force), noted either way; when it
  // does, its steps become series_.
  bool startLiveSeries(const MigrationRequest& request, uint64_t at);
  // Part 0, under the lock, with every other part held at a control point
  // before `at` or not yet started: the next step of series_ becomes
  // liveMove_ at control point `at`, announced to every part (kPlanLive).
  void planLiveStep(uint64_t at);
  // Part 0, before it switches the routes for a live move of `rank` to
  // part `target`: the hosts of the rank's part and of the target's (from
  // the job's rank -> host record), and one free slot of the target's host
  // claimed for it in the state store (ClusterState::claimMovedRankSlot);
  // why the move cannot take one, empty when it took it. Without the lock.
  std::string claimMoveSlot(uint32_t rank, uint32_t target, std::string& fromHost,
                            std::string& toHost);
  // Part 0, once the round is over: when the rank runs on the target, the
  // source's host gets its slot back and the record names the target's
  // host for the rank (synergy-cluster status, a restart's placement);
  // when not, the target's host gets back the slot claimed. A note when
  // the store does not answer. Without the lock.
  void settleMoveSlot(bool taken, uint32_t rank, uint32_t target, const std::string& fromHost,
                      const std::string& toHost);
  // Forwards this part's last output and ends the process with
  // kMigratedExitStatus.
  [[noreturn]] void endToBeMoved();

  const JobPart part_;
  MpiPeerLink* link_ = nullptr;
  // A part other than 0's: the round it is held at, waiting for part 0's
  // decision (0: none); a RouteSwitch is taken only for it.
  uint64_t heldAt_ = 0;
  RouteSwitchHook routeHook_;
  uint64_t routeSwitches_ = 0;  // part 0's, so far
  mpi::World* world_ = nullptr;
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t round_ = 0;                // the control point of this part's last round
  // Where the ranks meet (meetsAt): every control point while the route
  // switch's test hook names one by number; else liveMeetAt_ and the one part 0 named last (0: none yet),
  // while no ask is under way (frozen_: every rank that reaches a control
  // point waits for the meeting to be named). passed_: the last control
  // point a rank of this part has gone on past, or is at once it may go on.
  // Changed under the lock, read without it by ranks that go on
  // (meetsAt).
  std::atomic<bool> everyPoint_ = false;
  std::atomic<bool> frozen_ = false;
  std::atomic<uint64_t> meetingAt_ = 0;
  // A live move's control point (0: none), a meeting besides meetingAt_:
  // every part knows the move from the start (the hook, or the migration
  // its client asked for) and, when part 0 postpones it, from the
  // kLivePostponed that releases it. Until then the job's ranks meet only
  // where part 0 names, as at an interval.
  std::atomic<uint64_t> liveMeetAt_ = 0;
  std::atomic<uint64_t> passed_ = 0;
  std::atomic<int64_t> nextMigrationCheck_ = 0;  // part 0's, steady clock ns
  // Part 0's: the migration that applied at the last meeting was not taken.
  std::atomic<bool> retryMigration_ = false;
  uint64_t askRound_ = 0;      // part 0's asks so far
  uint64_t meetingReach_ = 0;  // part 0's: the most any part answered to this ask
  uint64_t meetingNotBefore_ = 0;  // part 0's: this ask's earliest meeting
  std::vector<PartSlot> slots_;       // part 0's, by part
  std::optional<Decision> decision_;  // the others', from part 0
  uint64_t decidedSequence_ = 0;      // the last checkpoint decided on (every part)
  // The mirror's: the copy of a checkpoint coming from part 0.
  checkpoint::PartFileAssembly copy_;
  // A resumed part's: the checkpoint it resumes from, from part 0, while
  // resumeExpected_; its number is that of the first chunk.
  bool resumeExpected_ = false;
  bool resumed_ = false;
  std::optional<std::string> joinError_;
  uint64_t resumeSequence_ = 0;
  checkpoint::PartFileAssembly resumeFile_;
  std::optional<std::string> resumeWhole_;
  std::string copyDirectory_;
  // Part 0's: the mirror's answer to the last copy, and the cluster state
  // the holders are recorded in.
  struct CopyAck {
    uint64_t sequence = 0;
    bool written = false;
  };
  std::optional<CopyAck> copyAck_;
  std::optional<RedisConnection> redis_;
  // The mirror, on the I/O thread: checks and writes a whole copy, answers.
  void writeCopy(std::string file, uint64_t sequence);
  // `hostIds` empty: those of parts 0 and 1.
  void recordHolders(uint64_t sequence, const std::vector<checkpoint::PartOutput>& outputs,
                     std::vector<std::string> hostIds = {});
  // A job that runs as one part, with a host-local directory: its second
  // copy goes to the daemon of another live, undrained host, the first by
  // id (the mirror host), over a connection of its own with the cluster
  // token (CheckpointMirror). A mirror that cannot be reached, refuses,
  // is lost or does not answer leaves the checkpoint with one holder, with
  // a note; the job goes on either way (true).
  bool mirrorCommitted(uint64_t sequence, std::string_view file,
                       const std::vector<checkpoint::PartOutput>& outputs);
  // Sends checkpoint `sequence` to the mirror host (chosen and connected
  // first when there is none), waits for its answer; false with `why`.
  bool sendToMirror(uint64_t sequence, std::string_view file, const std::string& ownHost,
                    std::string& why);
  std::string mirrorName_;
  std::unique_ptr<transport::Transport> mirrorTransport_;
  std::shared_ptr<transport::Connection> mirrorConnection_;
  std::string mirrorHost_;        // the mirror's host id
  std::optional<CopyAck> mirrorAck_;  // its answer to the last copy
  bool mirrorClosed_ = false;     // its connection has ended
  std::string mirrorNote_;        // the last note printed about it
  // Frames taken so far, read without the lock by the rank in waitAsRank.
  std::atomic<uint64_t> framesTaken_ = 0;
  std::vector<int> waitingRanks_;  // the ranks in waitAsRank
  // Part 0's: watches the cluster state for migrations of this job.
  std::unique_ptr<MigrationWatch> migration_;
  std::function<std::string()> resumeCheck_;
  uint64_t migrationRound_ = 0;  // the round suspended to move ranks
  std::chrono::steady_clock::time_point migrationStart_;  // when this part learned of it
  struct Outcome {
    uint64_t sequence = 0;
    bool stop = false;
  };
  std::optional<Outcome> migrationOutcome_;  // the others', from part 0
  // The live move between parts (SYNERGY_TEST_LIVE_MOVE=R@N:P): its rank,
  // control point (part 0 moves it on when the move is postponed), source
  // and target parts.
  struct LiveMove {
    bool set = false;
    uint32_t rank = 0;
    uint64_t at = 0;
    uint32_t source = 0, target = 0;
  };
  LiveMove liveMove_;
  // What the move asked for in the cluster state moves, when its steps are
  // taken live (empty for the test hook's).
  std::string liveMigration_;
  // Part 0's: the steps of that move (planLiveMoves), one rank a live round,
  // and the next to take; empty when no move is under way on the live
  // path. liveRefused_: a step was not taken, and the move takes the
  // restart path.
  std::vector<LiveMovePlan> series_;
  size_t seriesNext_ = 0;
  bool liveRefused_ = false;
  bool movesOnly_ = false;
  std::function<void(int, uint64_t)> livePlanned_;
  std::optional<Vote> liveDeparture_;  // part 0's: the source's phase 3 vote
  std::optional<Vote> liveCheck_;      // part 0's: the target's phase 4 vote
  std::chrono::steady_clock::time_point liveStart_;  // part 0's: its round began
  size_t grantCount_ = 0;              // the job's --dir grants (decodeDepartingRank)
  // The source's: part 0's word on the move (its kind 2 or 3 decision),
  // and whether the transport has given the lent bytes back.
  std::optional<Decision> liveWord_;
  bool lentReleased_ = true;
  uint64_t departedRound_ = 0;  // the round its rank departed at
  // The target's: the round whose landed section it checked and kept
  // (checkedSection_: the transport's buffer, kept, not copied), which a
  // route switch at that round may move the rank in for; then the rank to
  // take in, once part 0 has said so (kind 5).
  uint64_t checkedRound_ = 0;
  checkpoint::DepartingBytes checkedSection_;
  std::optional<std::pair<int, checkpoint::DepartingBytes>> arriving_;
  uint32_t arrivingFrom_ = 0;  // the source part of arriving_
  // The target's: the unfinished output lines its live move's rank left
  // with (RankOutputTails), until the rank is taken in.
  std::optional<std::pair<int, std::array<std::string, 2>>> arrivingTails_;
};

// How a part checkpoints: synergyd passes the client's request on the
// part's command line (`--checkpoint-every S --checkpoint-dir D
// --checkpoint-program P [--resume D]`).
struct PartCheckpointing {
  checkpoint::CheckpointPolicy policy;  // its directory: canonical, shared by the hosts
  bool resume = false;                  // restore the ranks from its checkpoint first
  // The program as the client names it, recorded for `--cluster --resume`.
  std::string clientProgram;
  // With a host-local directory: the client's D, which the mirror host of a
  // job that runs as one part keeps its copy below its own root under.
  std::string mirrorName;
  // With `resume`: the checkpoint to resume from (0: the directory's),
  // the one the client cut stdout back to (JobMessages.h).
  uint64_t resumeSequence = 0;
};

class PartCheckpoints {
 public:
  // Puts a coordinator on `job`'s barriers; with `resume`, reads and checks
  // the checkpoint (CheckpointedJob.h) and has the coordinator restore
  // this part's ranks from it. nullptr with a one-line `error` when the
  // checkpoint cannot be resumed by this part. With a host-local
  // directory only part 0 reads it here; the others get it from part 0
  // once joined, and their first rank's restore waits for it and checks
  // it as a file read here is checked.
  static std::unique_ptr<PartCheckpoints> create(const JobPart& part,
                                                 const PartCheckpointing& how,
                                                 mpi::JobOptions& job, std::string& error);
  MpiPeerLink::CheckpointFrames frames(mpi::World& world) { return agreement_.frames(world); }
  // Once the part has joined the others (`link`; nullptr when joining
  // failed with `joinError`), before any rank runs.
  void attach(MpiPeerLink* link, const std::string& joinError);
  // Before the part leaves the others: its checkpoint writes are done.
  void finishWrites() { coordinator_.finishWrites(); }
  // SYNERGY_CHECKPOINT_STATS=1: this part's counts (part 0's are the job's).
  void printStatistics() { checkpoint::printCheckpointStatistics(coordinator_); }

 private:
  PartCheckpoints(const JobPart& part, const PartCheckpointing& how, const mpi::JobOptions& job,
                  const checkpoint::Digest& digest);
  // A part other than 0's: the checkpoint part 0 sent, checked as a file
  // of `program` for a job of `ranks` ranks; nullptr with `error`.
  const checkpoint::CheckpointImage* receivedImage(const std::string& program, size_t ranks,
                                                   std::string& error);
  CheckpointAgreement agreement_;
  std::optional<checkpoint::CheckpointImage> image_;
  // Part 0's, of a resumed job with host-local directories: the file it
  // resumes from, sent to the other parts once they have joined.
  std::string resumeFile_;
  checkpoint::CheckpointCoordinator coordinator_;
};

}  // namespace synergy::cluster

//===- CheckpointAgreement.cpp - one checkpoint decision for a spread job --===//
//
// This file implements CheckpointAgreement.h.
//
//===----------------------------------------------------------------------===//
#include "cluster/CheckpointAgreement.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "checkpoint/CheckpointCopy.h"
#include "checkpoint/CheckpointedJob.h"
#include "checkpoint/DurableReplace.h"
#include "checkpoint/RankMove.h"
#include "cluster/CheckpointHolders.h"
#include "cluster/ClusterState.h"
#include "cluster/HostDeathHook.h"
#include "cluster/JobMessages.h"
#include "cluster/OutputNotes.h"
#include "cluster/RankSectionTransfer.h"
#include "cluster/RouteSwitch.h"
#include "transport/ClusterToken.h"
#include "mpi/BarrierControlPoint.h"
#include "mpi/World.h"
#include "util/FileIO.h"
#include "util/LittleEndian.h"
#include "util/Sha256.h"

namespace synergy::cluster {

namespace {

// How often a waiting part looks whether its job has aborted.
constexpr auto kAbortCheckInterval = std::chrono::milliseconds(100);
// How long part 0 recounts frames still in flight at a due round before it
// gives the round up: a collective's last frames arrive within a few
// recounts; a job whose frames stay in flight longer goes on to its next
// control point.
constexpr unsigned kMaxRecounts = 50;
constexpr auto kRecountLimit = std::chrono::milliseconds(500);
// How often part 0's ranks read the state store for a migration at control
// points where the ranks do not meet (MigrationWatch reads it at most every
// 50 ms itself while none is pending).
constexpr auto kMigrationCheckEvery = std::chrono::nanoseconds(std::chrono::milliseconds(10));
// How long a command to the state store may take before it counts as failed.
constexpr auto kStateTimeout = std::chrono::milliseconds(2000);

void putReason(std::vector<uint8_t>& out, const std::string& why) {
  std::string text = why.substr(0, transport::kMaxRefusalBytes);
  util::appendLittleEndian(out, text.size(), 4);
  out.insert(out.end(), text.begin(), text.end());
}

// The reason at `head` of `payload`, which must end the payload exactly.
bool takeReason(const std::vector<uint8_t>& payload, size_t head, std::string& why) {
  if (payload.size() < head + 4) return false;
  uint64_t bytes = util::readLittleEndian(payload.data() + head, 4);
  if (bytes > transport::kMaxRefusalBytes || payload.size() != head + 4 + bytes) return false;
  why.assign(payload.begin() + long(head + 4), payload.end());
  return true;
}

std::string fixed1(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

static_assert(checkpoint::kPartChunkHeadBytes == transport::kCheckpointPartDataHeadBytes &&
              checkpoint::kMaxPartChunkBytes == transport::kMaxCheckpointPartChunkBytes);

CheckpointAgreement::CheckpointAgreement(const JobPart& part)
    : part_(part), slots_(part.partRanks.size()) {
  for (uint32_t owner : part_.routes().partOfRanks())
    if (owner < slots_.size()) ++slots_[owner].ranks;
  if (part.partIndex == 0) migration_ = std::make_unique<MigrationWatch>(part.state, part.jobId);
  // Every other part's ranks wait at their first control point for part
  // 0's first word (attach): a migration asked for before the job started
  // is met at its control point, which no rank can have passed yet.
  frozen_ = part.partIndex != 0;
  // SYNERGY_TEST_LIVE_MOVE=R@N:P: rank R departs at control point N for
  // part P. A plain `synergy-run` reads RANK[@N] (CheckpointedJob.cpp);
  // a part reads only the form with a part.
  if (const char* hook = std::getenv("SYNERGY_TEST_LIVE_MOVE")) {
    LiveMoveHook parsed;
    if (parseLiveMoveHook(hook, part_.routes().partOfRanks(), uint32_t(slots_.size()), parsed))
      liveMove_ = LiveMove{true, parsed.rank, parsed.at, parsed.source, parsed.target};
    else if (part.partIndex == 0)
      std::fprintf(stderr,
                   "synergy-run: note: SYNERGY_TEST_LIVE_MOVE ignored: a job over hosts expects "
                   "R@N:P, rank R to part P, another part of the job than R's, at control point "
                   "N from 1, got '%s'\n",
                   hook);
  }
  if (liveMove_.set) liveMeetAt_ = liveMove_.at;
}

bool CheckpointAgreement::startLiveSeries(const MigrationRequest& request, uint64_t at) {
  // Part 0 alone reads the job's rank -> host record, and only for a move
  // asked for: the other parts learn of each step from part 0 (kPlanLive).
  std::vector<std::string> rankHosts;
  std::string why;
  std::optional<std::vector<LiveMovePlan>> plan;
  try {
    rankHosts = ClusterState(part_.state, kStateTimeout).rankHosts(part_.jobId);
    plan = planLiveMoves(request, rankHosts, link_->partOfRanks(), why, movesOnly_);
  } catch (const StateStoreError& e) {
    why = std::string("the job's rank -> host record cannot be read: ") + e.what();
  }
  if (!plan) {
    std::fprintf(stderr, "synergy-run: note: job %llu's move of %s takes the restart path: %s\n",
                 (unsigned long long)part_.jobId, request.what.c_str(), why.c_str());
    return false;
  }
  std::string steps;
  size_t part0Moves = 0;
  for (const LiveMovePlan& step : *plan) {
    steps += (steps.empty() ? "rank " : ", then rank ") + std::to_string(step.rank) +
             " from part " + std::to_string(step.source) + " to part " +
             std::to_string(step.target);
    part0Moves += step.source == 0;
  }
  std::vector<uint32_t> table = link_->partOfRanks();
  bool part0Leaves =
      part0Moves != 0 && part0Moves == size_t(std::count(table.begin(), table.end(), 0u));
  std::fprintf(stderr,
               "synergy-run: note: job %llu's move of %s takes the live path: %s from control "
               "point %llu%s%s\n",
               (unsigned long long)part_.jobId, request.what.c_str(), steps.c_str(),
               (unsigned long long)at, plan->size() > 1 ? ", one rank a live round" : "",
               part0Leaves ? "; part 0 leaves the job with its last rank, and no checkpoint or "
                             "move is taken after that"
                           : "");
  std::lock_guard<std::mutex> guard(mutex_);
  series_ = std::move(*plan);
  seriesNext_ = 0;
  liveMigration_ = request.what;
  return true;
}

void CheckpointAgreement::planLiveStep(uint64_t at) {
  const LiveMovePlan step = series_[seriesNext_];
  liveMove_ = LiveMove{true, step.rank, at, step.source, step.target};
  liveMeetAt_ = at;
  // Between steps part 0 holds every part at each control point, where it
  // plans the next (agree); a move of one rank meets only at its own.
  const bool moreFollow = seriesNext_ + 1 < series_.size();
  // After the last step the ranks meet only where part 0 names again (a
  // part 0 that leaves with that step names none).
  everyPoint_ = moreFollow || routeHook_.at != 0;
  for (uint32_t p = 1; p < slots_.size(); ++p)
    sendDecision(p, at, kPlanLive,
                 uint64_t(step.rank) | uint64_t(step.target) << 32 | uint64_t(moreFollow) << 63,
                 {});
  if (step.source == 0 && livePlanned_) livePlanned_(int(step.rank), at);
}

bool CheckpointAgreement::liveMoveDepartsHere(int& rank, uint64_t& at) const {
  if (!liveMove_.set || liveMove_.source != part_.partIndex) return false;
  rank = int(liveMove_.rank);
  at = liveMove_.at;
  return true;
}

MpiPeerLink::CheckpointFrames CheckpointAgreement::frames(mpi::World& world) {
  {
    // A resumed part's restore may already wait in receiveResumeFile.
    std::lock_guard<std::mutex> guard(mutex_);
    world_ = &world;
  }
  return [this](uint32_t from, transport::FrameType type, const std::vector<uint8_t>& payload,
                std::string& reason) { return onFrame(from, type, payload, reason); };
}

void CheckpointAgreement::attach(MpiPeerLink& link) {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    link_ = &link;
    if (const char* hook = std::getenv("SYNERGY_TEST_ROUTE_SWITCH"))
      if (!parseRouteSwitchHook(hook, uint32_t(slots_.size()), uint32_t(part_.worldSize()),
                                routeHook_))
        std::fprintf(stderr,
                     "synergy-run: note: SYNERGY_TEST_ROUTE_SWITCH ignored: it expects N, "
                     "N:refuse=P (P a part other than 0), N:move=R@P or N:stray, got '%s'\n",
                     hook);
    // The route switch's hook names control points by number: every one
    // is a meeting, as before parts met only where a checkpoint fell due.
    // A live move's is a meeting of its own (liveMeetAt_). Set, never
    // cleared, here: part 0's plan of several steps (kPlanLive) may have
    // come in on the I/O thread before this part attached, and a part that
    // cleared its everyPoint_ went on past control point 1 while part 0
    // met there (migrate-live's two-rank run deadlocked in CI).
    if (routeHook_.at != 0) everyPoint_ = true;
  }
  if (part_.partIndex == 0) {
    uint64_t pendingAt = 0;
    bool now = migration_->dueAt(0, &pendingAt);
    // A move the client asked for before the job started (--consolidate-at,
    // SYNERGY_FORCE_MIGRATION) from control point pendingAt: planned now,
    // before any rank runs, for every part; the other parts' ranks wait at
    // their first control point for the meeting named below, after the
    // plan. One that cannot take the live path takes the restart path there.
    bool live = false;
    if (!now && pendingAt != 0 && slots_.size() > 1 && !liveMove_.set && migration_->request()) {
      live = startLiveSeries(*migration_->request(), pendingAt);
      liveRefused_ = !live;
    }
    std::lock_guard<std::mutex> guard(mutex_);
    if (live) planLiveStep(pendingAt);
    meetingAt_ = now ? 1 : pendingAt;
    for (uint32_t p = 1; p < slots_.size(); ++p) sendDecision(p, meetingAt_, kMeetAt, 0, {});
  }
  link.setRouteGate(
      [this](uint64_t round) {
        std::lock_guard<std::mutex> guard(mutex_);
        // The live move's source is held in its round until part 0's word.
        if (heldAt_ == 0 && departedRound_ == round && !liveWord_ && liveMove_.set &&
            liveMove_.source == part_.partIndex)
          return std::string();
        if (heldAt_ == 0) return std::string("this part is not held at a control point");
        if (heldAt_ != round)
          return "this part is held at control point " + std::to_string(heldAt_);
        return std::string();
      },
      [this](uint64_t round) {
        if (routeHook_.at == round && routeHook_.refusePart == part_.partIndex)
          return std::string("SYNERGY_TEST_ROUTE_SWITCH has part ") +
                 std::to_string(part_.partIndex) + " refuse it";
        return std::string();
      });
  // Only the live move's rank may move, and only between its source and
  // its target: the target once it has checked what landed at this round
  // (and kept it), the source once the rank departed at this round and
  // before part 0's word. The source does not wait to hear Landed itself:
  // it comes on another connection than part 0's switch, which part 0
  // sends only after the target's Landed and check.
  link.setRouteMoveAllowance([this](uint64_t round, uint32_t rank) {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!liveMove_.set || rank != liveMove_.rank || round == 0) return false;
    if (liveMove_.target == part_.partIndex) return checkedRound_ == round;
    if (liveMove_.source == part_.partIndex) return departedRound_ == round && !liveWord_;
    return false;
  });
}

void CheckpointAgreement::sendStrayRouteFrames(uint64_t round) {
  uint32_t parts = uint32_t(slots_.size());
  RouteSwitchFrame frame{round, round, RouteSwitchFrame::kSwitch, parts, link_->partOfRanks()};
  if (part_.partIndex != 0) {
    // Well formed, but not from part 0; and an answer to no switch.
    for (uint32_t p = 0; p < parts; ++p)
      if (p != part_.partIndex)
        link_->sendToPart(p, transport::FrameType::RouteSwitch, encodeRouteSwitch(frame));
    link_->sendToPart(0, transport::FrameType::RouteSwitchAnswer,
                      encodeRouteSwitchAnswer({round + 1000, RouteSwitchFrame::kSwitch, true, {}}));
    return;
  }
  for (uint32_t p = 1; p < parts; ++p) {
    // A control point the part is not held at.
    RouteSwitchFrame later = frame;
    later.round = round + 1000;
    link_->sendToPart(p, transport::FrameType::RouteSwitch, encodeRouteSwitch(later));
    // Cut short.
    std::vector<uint8_t> cut = encodeRouteSwitch(frame);
    cut.resize(cut.size() - 3);
    link_->sendToPart(p, transport::FrameType::RouteSwitch, std::move(cut));
    // A rank on a part that does not exist.
    RouteSwitchFrame nowhere = frame;
    nowhere.partOfRank.back() = parts + 7;
    link_->sendToPart(p, transport::FrameType::RouteSwitch, encodeRouteSwitch(nowhere));
  }
}

bool CheckpointAgreement::switchRoutesAt(std::unique_lock<std::mutex>& lock, int worldRank,
                                         uint64_t round, const Vote& own, bool settled) {
  // The hook's switch keeps every rank where it is (the table in force),
  // or moves one.
  std::vector<uint32_t> table = link_->partOfRanks();
  if (routeHook_.move) table[routeHook_.moveRank] = routeHook_.movePart;
  // A table that moves a rank needs nothing in flight between the parts:
  // every part can suspend (its mailboxes are empty) and the frame counts
  // settle (settleCounts, unless this round's checkpoint settled them).
  std::string inFlight;
  if (table != link_->partOfRanks()) {
    inFlight = decide(true, own);
    if (inFlight.empty() && !settled && !settleCounts(lock, worldRank, round, own, inFlight))
      return false;
  }
  uint64_t moveId = ++routeSwitches_;
  lock.unlock();
  std::string why;
  auto start = std::chrono::steady_clock::now();
  bool taken = link_->switchRoutes(moveId, round, table, inFlight, why);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
  if (taken)
    std::fprintf(stderr,
                 "synergy-run: note: route switch %llu at control point %llu taken by %zu parts "
                 "(%.1f ms)\n",
                 (unsigned long long)moveId, (unsigned long long)round, slots_.size(), ms);
  else
    std::fprintf(stderr,
                 "synergy-run: note: route switch %llu at control point %llu rolled back (%s)\n",
                 (unsigned long long)moveId, (unsigned long long)round, why.c_str());
  lock.lock();
  return true;
}

void CheckpointAgreement::expectResumeFile() {
  std::lock_guard<std::mutex> guard(mutex_);
  resumeExpected_ = true;
}

void CheckpointAgreement::sendResumeFile(const std::string& file, uint64_t sequence) {
  // Test hook, for the recovery tests only: SYNERGY_TEST_SEND_CORRUPT_RESUME_FILE=1
  // flips one bit in the middle of what part 0 sends, as a fault on the
  // way or a bad sender would, so that a test sees the receiving parts
  // refuse it through the real daemons.
  std::string corrupted;
  if (const char* corrupt = std::getenv("SYNERGY_TEST_SEND_CORRUPT_RESUME_FILE");
      corrupt && std::strcmp(corrupt, "1") == 0 && !file.empty()) {
    corrupted = file;
    corrupted[corrupted.size() / 2] ^= 0x40;
  }
  const std::string& sent = corrupted.empty() ? file : corrupted;
  for (uint32_t p = 1; p < slots_.size(); ++p)
    checkpoint::forEachPartChunk(sequence, {sent}, [&](std::vector<uint8_t> chunk) {
      link_->sendToPart(p, transport::FrameType::CheckpointCopy, std::move(chunk));
    });
}

std::optional<std::string> CheckpointAgreement::receiveResumeFile(uint64_t& sequence,
                                                                  std::string& error) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!resumeWhole_) {
    if (joinError_) {
      error = "no checkpoint to resume from came from part 0: " + *joinError_;
      return std::nullopt;
    }
    if (world_ && world_->aborted()) {
      error = "the job ended before part 0 had sent the checkpoint to resume from";
      return std::nullopt;
    }
    changed_.wait_for(lock, kAbortCheckInterval);
  }
  sequence = resumeSequence_;
  std::optional<std::string> whole = std::move(resumeWhole_);
  resumeWhole_.reset();
  return whole;
}

void CheckpointAgreement::joinFailed(const std::string& error) {
  std::lock_guard<std::mutex> guard(mutex_);
  joinError_ = error;
  changed_.notify_all();
}

template <typename Ready>
bool CheckpointAgreement::waitFor(std::unique_lock<std::mutex>& lock, Ready&& ready) {
  while (!ready()) {
    if (world_->aborted()) return false;
    changed_.wait_for(lock, kAbortCheckInterval);
  }
  return true;
}

template <typename Ready>
bool CheckpointAgreement::waitAsRank(std::unique_lock<std::mutex>& lock, int worldRank,
                                     Ready&& ready) {
  waitingRanks_.push_back(worldRank);
  bool alive = true;
  while (alive && !ready()) {
    uint64_t taken = framesTaken_.load();
    lock.unlock();
    alive = world_->waitForOthers(worldRank, mpi::WaitInfo{mpi::kControlPointWait},
                                  [&] { return framesTaken_.load() != taken; });
    lock.lock();
  }
  waitingRanks_.erase(std::find(waitingRanks_.begin(), waitingRanks_.end(), worldRank));
  return alive;
}

void CheckpointAgreement::sendVote(uint8_t phase, const Vote& vote) {
  std::vector<uint8_t> payload;
  util::appendLittleEndian(payload, vote.round, 8);
  payload.push_back(phase);
  payload.push_back(vote.canSuspend ? 1 : vote.canMoveLive ? 2 : 0);
  util::appendLittleEndian(payload, vote.sent, 8);
  util::appendLittleEndian(payload, vote.received, 8);
  putReason(payload, vote.why);
  link_->sendToPart(0, transport::FrameType::CheckpointVote, std::move(payload));
}

bool CheckpointAgreement::onFrame(uint32_t from, transport::FrameType type,
                                  const std::vector<uint8_t>& payload, std::string& reason) {
  bool self0 = part_.partIndex == 0;
  std::unique_lock<std::mutex> lock(mutex_);
  switch (type) {
    case transport::FrameType::CheckpointVote: {
      Vote vote;
      if (!self0 || payload.size() < transport::kCheckpointVoteHeadBytes ||
          !takeReason(payload, 26, vote.why) || payload[8] < 1 || payload[8] > 5 ||
          payload[9] > 2) {
        reason = "malformed CheckpointVote";
        return false;
      }
      // Phase 3: the live move's source says its rank left (or did not);
      // 4: its target says whether the rank could arrive there.
      if (payload[8] == 3 && (!liveMove_.set || from != liveMove_.source)) {
        reason = "CheckpointVote of a departure from a part that is no live move's source";
        return false;
      }
      if (payload[8] == 4 && (!liveMove_.set || from != liveMove_.target)) {
        reason = "CheckpointVote of a landed check from a part that is no live move's target";
        return false;
      }
      // One recount is outstanding at a time: a reply part 0 did not ask
      // for could be taken for the next one's.
      if (payload[8] == 2 && !slots_[from].recountAsked) {
        reason = "CheckpointVote recount that was not asked for";
        return false;
      }
      vote.round = util::readLittleEndian(payload.data(), 8);
      vote.canSuspend = payload[9] == 1;
      vote.canMoveLive = payload[9] != 0;
      vote.sent = util::readLittleEndian(payload.data() + 10, 8);
      vote.received = util::readLittleEndian(payload.data() + 18, 8);
      // Phase 5 answers part 0's ask for a meeting (kAskMeeting) with the
      // last control point the part's ranks have gone on past.
      if (payload[8] == 5) {
        if (!slots_[from].askOutstanding || vote.round != askRound_) {
          reason = "CheckpointVote answering no ask for a meeting";
          return false;
        }
        slots_[from].askOutstanding = false;
        meetingReach_ = std::max(meetingReach_, vote.sent);
        finishAskWhenAnswered();
        break;
      }
      if (payload[8] >= 3) {
        (payload[8] == 3 ? liveDeparture_ : liveCheck_) = std::move(vote);
        break;
      }
      if (payload[8] == 2) slots_[from].recountAsked = false;
      (payload[8] == 1 ? slots_[from].vote : slots_[from].recount) = std::move(vote);
      break;
    }
    case transport::FrameType::CheckpointDecision: {
      Decision decision;
      if (self0 || from != 0 || payload.size() < transport::kCheckpointDecisionHeadBytes ||
          !takeReason(payload, 17, decision.why) ||
          (payload[8] > kPlanLive && payload[8] != kLivePostponed) ||
          (payload[8] == kLivePostponed && !liveMove_.set) ||
          ((payload[8] == 2 || payload[8] == 3) &&
           (!liveMove_.set || liveMove_.source != part_.partIndex)) ||
          ((payload[8] == 4 || payload[8] == kTakeIn) &&
           (!liveMove_.set || liveMove_.target != part_.partIndex))) {
        reason = "malformed CheckpointDecision";
        return false;
      }
      decision.round = util::readLittleEndian(payload.data(), 8);
      decision.suspend = payload[8] == 1 || payload[8] == 3;
      decision.sequence = util::readLittleEndian(payload.data() + 9, 8);
      decision.kind = payload[8];
      // Part 0 asks where this part's ranks stand (answered here, on the
      // I/O thread: they wait at their next control point until the
      // meeting is named), then names it. One ask at a time, each meeting
      // after the last.
      if (decision.kind == kAskMeeting) {
        if (frozen_ || !link_) {
          reason = "CheckpointDecision asking for a meeting while one is being named";
          return false;
        }
        frozen_ = true;  // before passed_ is read: see meetsAt
        sendVote(5, {decision.round, true, passed_.load(), 0, {}});
        break;
      }
      if (decision.kind == kMeetAt) {
        // The first names none (0) when no migration is asked for.
        if (!frozen_ || (decision.round <= meetingAt_ && decision.round != 0)) {
          reason = "CheckpointDecision naming a meeting no ask was under way for";
          return false;
        }
        meetingAt_ = decision.round;
        frozen_ = false;
        break;
      }
      if (decision.kind == kPlanLive) {
        // Sent while every rank of this part is held at an earlier control
        // point (or before the first): the rank's part departs it there.
        uint32_t rank = uint32_t(decision.sequence);
        uint32_t target = uint32_t(decision.sequence >> 32) & 0x7fffffffu;
        bool moreFollow = decision.sequence >> 63;
        std::vector<uint32_t> table = partOfRanks();
        if (rank >= table.size() || target >= slots_.size() || table[rank] == target ||
            decision.round == 0 || decision.round <= round_) {
          reason = "CheckpointDecision planning a live move no part can take";
          return false;
        }
        liveMove_ = LiveMove{true, rank, decision.round, table[rank], target};
        liveMeetAt_ = decision.round;
        // The last step's plan ends the meetings at every control point
        // (held at a meeting, no rank of this part can pass one meanwhile).
        everyPoint_ = moreFollow || routeHook_.at != 0;
        if (table[rank] == part_.partIndex && livePlanned_)
          livePlanned_(int(rank), decision.round);
        break;
      }
      if (payload[8] == 2 || payload[8] == 3) {  // part 0's word on the live move: 3, the rank left
        liveWord_ = std::move(decision);
        break;
      }
      // Named before the ranks held at this round go on (on the decision
      // below): the next control point is the postponed move's meeting.
      if (decision.kind == kLivePostponed) liveMeetAt_ = liveMove_.at = decision.round + 1;
      if (decision.suspend) decidedSequence_ = decision.sequence;
      decision_ = std::move(decision);
      break;
    }
    case transport::FrameType::RankOutputTails: {
      // Hostile bytes: each length is checked against the frame's rest.
      std::array<std::string, 2> tails;
      size_t at = 12;
      bool wellFormed = payload.size() >= transport::kRankOutputTailsHeadBytes;
      for (std::string& tail : tails) {
        if (!wellFormed || payload.size() - at < 4) {
          wellFormed = false;
          break;
        }
        uint64_t bytes = util::readLittleEndian(payload.data() + at, 4);
        at += 4;
        if (bytes > transport::kMaxRankOutputTailBytes || payload.size() - at < bytes) {
          wellFormed = false;
          break;
        }
        tail.assign(reinterpret_cast<const char*>(payload.data() + at), size_t(bytes));
        at += size_t(bytes);
      }
      if (!wellFormed || at != payload.size()) {
        reason = "malformed RankOutputTails";
        return false;
      }
      uint32_t rank = uint32_t(util::readLittleEndian(payload.data() + 8, 4));
      if (!liveMove_.set || from != liveMove_.source || liveMove_.target != part_.partIndex ||
          rank != liveMove_.rank) {
        reason = "RankOutputTails from a part that is no live move's source to this part";
        return false;
      }
      arrivingTails_.emplace(int(rank), std::move(tails));
      return true;
    }
    case transport::FrameType::CheckpointRecount: {
      // A recount follows this part's vote, which follows attach().
      if (self0 || from != 0 || payload.size() != transport::kCheckpointRecountBytes || !link_) {
        reason = "malformed CheckpointRecount";
        return false;
      }
      // Answered here, on the I/O thread: this part's ranks stand still
      // in their control point meanwhile.
      sendVote(2, {util::readLittleEndian(payload.data(), 8),
                   true,
                   link_->framesSent(),
                   link_->framesReceived(),
                   {}});
      return true;
    }
    case transport::FrameType::CheckpointWritten: {
      if (!self0 || payload.size() != transport::kCheckpointWrittenBytes || payload[8] > 1) {
        reason = "malformed CheckpointWritten";
        return false;
      }
      slots_[from].written = Written{util::readLittleEndian(payload.data(), 8), payload[8] == 1,
                                     util::readLittleEndian(payload.data() + 9, 8)};
      break;
    }
    case transport::FrameType::CheckpointPartData: {
      if (!self0 || from == 0) {
        reason = "CheckpointPartData to a part other than 0";
        return false;
      }
      if (!slots_[from].partFile.take(payload, decidedSequence_, slots_[from].ranks, reason))
        return false;
      break;
    }
    case transport::FrameType::CheckpointCopy: {
      if (resumeExpected_ && from == 0) {
        // The checkpoint this part resumes from: its number is the first
        // chunk's, the file's own checks come once it is whole.
        if (resumeSequence_ == 0 && payload.size() >= 8)
          resumeSequence_ = util::readLittleEndian(payload.data(), 8);
        if (!resumeFile_.take(payload, resumeSequence_, size_t(part_.worldSize()), reason))
          return false;
        if (std::optional<std::string> whole = resumeFile_.takeWhole(resumeSequence_)) {
          resumeWhole_ = std::move(whole);
          resumeExpected_ = false;
        }
        break;
      }
      if (self0 && payload.size() == transport::kCheckpointCopyAckBytes && from == 1 &&
          payload[8] <= 1) {
        copyAck_ = CopyAck{util::readLittleEndian(payload.data(), 8), payload[8] == 1};
        break;
      }
      if (self0 || from != 0 || part_.partIndex != 1 || copyDirectory_.empty()) {
        reason = "malformed CheckpointCopy";
        return false;
      }
      if (!copy_.take(payload, decidedSequence_, size_t(part_.worldSize()), reason)) return false;
      if (std::optional<std::string> whole = copy_.takeWhole(decidedSequence_)) {
        lock.unlock();
        writeCopy(std::move(*whole), decidedSequence_);
        lock.lock();
      }
      break;
    }
    case transport::FrameType::MigrationStop: {
      if (self0 || from != 0 || payload.size() != transport::kMigrationStopBytes) {
        reason = "malformed MigrationStop";
        return false;
      }
      migrationRound_ = util::readLittleEndian(payload.data(), 8);
      migrationStart_ = std::chrono::steady_clock::now();
      break;
    }
    case transport::FrameType::MigrationOutcome: {
      if (self0 || from != 0 || payload.size() != transport::kMigrationOutcomeBytes ||
          payload[8] > 1) {
        reason = "malformed MigrationOutcome";
        return false;
      }
      migrationOutcome_ = Outcome{util::readLittleEndian(payload.data(), 8), payload[8] == 1};
      break;
    }
    default:
      reason = "not a checkpoint frame";
      return false;
  }
  ++framesTaken_;
  std::vector<int> waiting = waitingRanks_;
  changed_.notify_all();
  lock.unlock();
  for (int rank : waiting) world_->wakeWaiter(rank);
  return true;
}

bool CheckpointAgreement::allAnswered(std::optional<Vote> PartSlot::*which,
                                      uint64_t round) const {
  for (uint32_t p = 1; p < slots_.size(); ++p)
    if (!slots_[p].gone && (!(slots_[p].*which) || (slots_[p].*which)->round != round))
      return false;
  return true;
}

// Part 0, with every part's vote of this round in slots_ (and `own`): why
// the job must not suspend now as its ranks stand, empty when it may once
// nothing is in flight (settleCounts).
std::string CheckpointAgreement::decide(bool due, const Vote& own, bool live) {
  if (!due) return {};
  auto refuses = [live](const Vote& vote) { return live ? !vote.canMoveLive : !vote.canSuspend; };
  if (refuses(own)) return own.why;
  for (uint32_t p = 1; p < slots_.size(); ++p)
    if (refuses(*slots_[p].vote)) return slots_[p].vote->why;
  return {};
}

bool CheckpointAgreement::settleCounts(std::unique_lock<std::mutex>& lock, int worldRank,
                                       uint64_t round, const Vote& own, std::string& why) {
  // Each part's frames sent and received at the last reading, part 0's
  // own first; the votes are the first reading.
  using Reading = std::vector<std::pair<uint64_t, uint64_t>>;
  Reading previous{{own.sent, own.received}};
  for (uint32_t p = 1; p < slots_.size(); ++p)
    previous.push_back(slots_[p].gone
                           ? std::make_pair(slots_[p].goneSent, slots_[p].goneReceived)
                           : std::make_pair(slots_[p].vote->sent, slots_[p].vote->received));
  auto start = std::chrono::steady_clock::now();
  for (unsigned recount = 1;; ++recount) {
    for (uint32_t p = 1; p < slots_.size(); ++p) {
      if (slots_[p].gone) continue;
      slots_[p].recount.reset();
      slots_[p].recountAsked = true;
      std::vector<uint8_t> payload;
      util::appendLittleEndian(payload, round, 8);
      link_->sendToPart(p, transport::FrameType::CheckpointRecount, std::move(payload));
    }
    if (!waitAsRank(lock, worldRank, [&] { return allAnswered(&PartSlot::recount, round); }))
      return false;
    Reading current{{link_->framesSent(), link_->framesReceived()}};
    for (uint32_t p = 1; p < slots_.size(); ++p)
      current.push_back(slots_[p].gone
                            ? std::make_pair(slots_[p].goneSent, slots_[p].goneReceived)
                            : std::make_pair(slots_[p].recount->sent, slots_[p].recount->received));
    uint64_t sent = 0, received = 0;
    for (const auto& counts : current) {
      sent += counts.first;
      received += counts.second;
    }
    if (current == previous && sent == received) {
      why.clear();
      return true;
    }
    why = "a message between hosts was in flight (" + std::to_string(sent) + " frames sent, " +
          std::to_string(received) + " received, after " + std::to_string(recount) +
          (recount == 1 ? " recount)" : " recounts)");
    if (recount >= kMaxRecounts || std::chrono::steady_clock::now() - start >= kRecountLimit)
      return true;
    previous = std::move(current);
  }
}

bool CheckpointAgreement::meetsAt(int worldRank, uint64_t controlPoint, bool due) {
  if (everyPoint_) return true;
  // This control point counts as passed before frozen_ is read, and an ask
  // sets frozen_ before it reads passed_: either this rank sees the ask
  // and waits for the meeting to be named, or the ask's answer counts this
  // control point as passed and names a later one.
  uint64_t passed = passed_.load();
  while (passed < controlPoint && !passed_.compare_exchange_weak(passed, controlPoint)) {
  }
  // Part 0 reads the state store for a migration at most every
  // kMigrationCheckEvery, one rank at a time.
  // A move not taken at the last meeting is looked for again at the next
  // control point, not after kMigrationCheckEvery: a program's last control
  // points can all come within it (checkpoint_skips_invoke.c: a barrier
  // outside its invoke_* calls comes right after three inside).
  bool checkMigration = migration_ && retryMigration_.load();
  if (migration_ && !checkMigration) {
    int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
    int64_t next = nextMigrationCheck_.load();
    checkMigration = now >= next && nextMigrationCheck_.compare_exchange_strong(
                                        next, now + kMigrationCheckEvery.count());
  }
  // Without the lock when no ask is under way and this part does not ask.
  // everyPoint_ is read again after frozen_: a plan of several steps
  // (kPlanLive) and the meeting that unfreezes the ranks (kMeetAt) may both
  // have come in since the first read, and part 0 meets here then.
  if (!frozen_.load() && !due && !checkMigration)
    return everyPoint_.load() || controlPoint == meetingAt_.load() ||
           controlPoint == liveMeetAt_.load();
  std::unique_lock<std::mutex> lock(mutex_);
  // An ask is under way: this control point may be the meeting's.
  if (frozen_ && !waitAsRank(lock, worldRank, [&] { return !frozen_; })) return false;
  if (part_.partIndex == 0 && controlPoint > meetingAt_) {
    // A migration asked for from a later control point on is met there
    // (or at the first after it that no rank has passed): named now, while
    // the ranks may still be short of it.
    // Not while a move's steps are taken live: its request stays pending
    // until the last step, and part 0 plans each step itself (agree). A
    // meeting asked for it after the last step's plan would be one more,
    // where no part 0 answers once that step took its last rank.
    uint64_t pendingAt = 0;
    bool migrating =
        checkMigration && series_.empty() && migration_->dueAt(controlPoint, &pendingAt);
    if (due || migrating || pendingAt > controlPoint) {
      askMeeting(pendingAt);
      if (frozen_ && !waitAsRank(lock, worldRank, [&] { return !frozen_; })) return false;
    }
  }
  // A plan of several steps (kPlanLive) may have come in while this rank
  // waited for the meeting to be named: from then on every point meets.
  return everyPoint_ || controlPoint == meetingAt_ || controlPoint == liveMeetAt_;
}

void CheckpointAgreement::askMeeting(uint64_t notBefore) {
  meetingNotBefore_ = notBefore;
  frozen_ = true;  // before passed_ is read: see meetsAt
  ++askRound_;
  meetingReach_ = passed_.load();
  for (uint32_t p = 1; p < slots_.size(); ++p) {
    // A part that left the job in a live move answers no more.
    if (slots_[p].gone) continue;
    slots_[p].askOutstanding = true;
    sendDecision(p, askRound_, kAskMeeting, 0, {});
  }
  finishAskWhenAnswered();
}

void CheckpointAgreement::finishAskWhenAnswered() {
  for (uint32_t p = 1; p < slots_.size(); ++p)
    if (slots_[p].askOutstanding) return;
  meetingAt_ = std::max(meetingReach_ + 1, meetingNotBefore_);
  frozen_ = false;
  for (uint32_t p = 1; p < slots_.size(); ++p) sendDecision(p, meetingAt_, kMeetAt, 0, {});
}

bool CheckpointAgreement::agree(int worldRank, uint64_t controlPoint, bool due, bool canSuspend,
                                bool canMoveLive, std::string& why, uint64_t& sequence,
                                bool& aborted) {
  // Part 0 reads the state store before it takes the lock, so that the
  // other parts' votes are taken in meanwhile; only this thread changes
  // round_. While a move's steps are taken live it is not read: each
  // step's slot was claimed by the last, which its claims do not count.
  bool migrating = false;
  if (migration_) {
    bool inSeries = false, mayGoLive = false;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      inSeries = !series_.empty();
      mayGoLive = !liveRefused_ && !(liveMove_.set && liveMigration_.empty()) && link_ &&
                  slots_.size() > 1;
    }
    migrating = !inSeries && migration_->dueAt(controlPoint);
    // A move asked for while the job runs (synergy-cluster migrate, the
    // scheduler) takes the live path from the next control point when it
    // can; this one goes on as any other. Otherwise the restart path.
    if (migrating && mayGoLive) {
      bool live = startLiveSeries(*migration_->request(), controlPoint + 1);
      std::lock_guard<std::mutex> guard(mutex_);
      liveRefused_ = !live;
      migrating = !live;
    } else if (!inSeries && !migration_->request()) {
      std::lock_guard<std::mutex> guard(mutex_);
      liveRefused_ = false;
    }
  }
  std::unique_lock<std::mutex> lock(mutex_);
  uint64_t round = round_ = controlPoint;
  Vote own{round, canSuspend, link_->framesSent(), link_->framesReceived(), why,
           canSuspend || canMoveLive};
  if (part_.partIndex != 0) {
    heldAt_ = round;
    sendVote(1, own);
    if (routeHook_.stray && routeHook_.at == round && part_.partIndex == 1)
      sendStrayRouteFrames(round);
    bool decided = false;
    for (;;) {
      decided =
          waitAsRank(lock, worldRank, [&] { return decision_ && decision_->round == round; });
      if (!decided || decision_->kind != 4) break;
      // The live move's target, held here: checks what landed, answers,
      // and waits on for part 0's decision.
      decision_.reset();
      lock.unlock();
      auto start = std::chrono::steady_clock::now();
      std::string refusal = checkLanded(round);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                            start).count();
      sendVote(4, {round, refusal.empty(), 0, uint64_t(ms * 1000.0), refusal});
      lock.lock();
    }
    heldAt_ = 0;
    if (!decided) {
      aborted = true;
      return false;
    }
    // A live move's target: kind kTakeIn takes the rank in from the section it
    // checked (the coordinator asks takeArrivingRank); otherwise its
    // landed section goes.
    if (liveMove_.set && liveMove_.target == part_.partIndex) {
      link_->sectionTransfer().takeLanded(round);
      if (decision_->kind == kTakeIn && checkedRound_ == round && !checkedSection_.empty()) {
        arriving_.emplace(int(liveMove_.rank), std::move(checkedSection_));
        arrivingFrom_ = liveMove_.source;
      }
      checkedSection_.clear();
      checkedRound_ = 0;
    }
    why = decision_->why;
    sequence = decision_->sequence;
    return decision_->suspend;
  }
  bool live = liveMove_.set && liveMove_.at == round;
  due = due || migrating || live;
  if (!waitAsRank(lock, worldRank, [&] { return allAnswered(&PartSlot::vote, round); })) {
    aborted = true;
    return false;
  }
  why = decide(due, own, live);
  if (due && why.empty() && slots_.size() > 1 && !settleCounts(lock, worldRank, round, own, why)) {
    aborted = true;
    return false;
  }
  retryMigration_ = migrating && !(due && why.empty() && !live);
  if (live) {
    if (migrating && liveMigration_.empty())
      migration_->notTaken(round, "a live move is under way");
    return liveRound(lock, worldRank, round, why, aborted);
  }
  bool suspend = due && why.empty();
  if (routeHook_.at == round && slots_.size() > 1) {
    if (routeHook_.stray) sendStrayRouteFrames(round);
    if (!switchRoutesAt(lock, worldRank, round, own, due && why.empty())) {
      aborted = true;
      return false;
    }
  }
  if (migrating && !suspend) migration_->notTaken(round, why);
  if (migrating && suspend) {
    migrationRound_ = round;
    migrationStart_ = std::chrono::steady_clock::now();
    for (uint32_t p = 1; p < slots_.size(); ++p) {
      std::vector<uint8_t> payload;
      util::appendLittleEndian(payload, round, 8);
      link_->sendToPart(p, transport::FrameType::MigrationStop, std::move(payload));
    }
  }
  if (suspend) decidedSequence_ = sequence;
  // The next step of a move taken live, at the next control point: every
  // part hears of it while held here, before the decision releases it.
  if (seriesNext_ < series_.size() && (!liveMove_.set || liveMove_.at < round) && !migrating)
    planLiveStep(round + 1);
  for (uint32_t p = 1; p < slots_.size(); ++p) sendDecision(p, round, suspend ? 1 : 0, sequence, why);
  return suspend;
}

void CheckpointAgreement::sendDecision(uint32_t part, uint64_t round, uint8_t kind,
                                       uint64_t sequence, const std::string& why) {
  if (slots_[part].gone) return;
  std::vector<uint8_t> payload;
  util::appendLittleEndian(payload, round, 8);
  payload.push_back(kind);
  util::appendLittleEndian(payload, sequence, 8);
  putReason(payload, why);
  link_->sendToPart(part, transport::FrameType::CheckpointDecision, std::move(payload));
}

bool CheckpointAgreement::liveRound(std::unique_lock<std::mutex>& lock, int worldRank,
                                    uint64_t round, std::string& why, bool& aborted) {
  using Clock = std::chrono::steady_clock;
  const LiveMove move = liveMove_;
  char head[160];
  std::snprintf(head, sizeof head, "live move of rank %u from part %u to part %u at control point %llu",
                move.rank, move.source, move.target, (unsigned long long)round);
  if (!why.empty()) {
    // Tried again at the next control point, as the source's coordinator
    // does: every part meets there (kLivePostponed names it to the others
    // as it releases them).
    liveMeetAt_ = ++liveMove_.at;
    std::fprintf(stderr, "synergy-run: note: %s postponed (%s)\n", head, why.c_str());
    if (!liveMigration_.empty() && migration_) migration_->notTaken(round, why);
    for (uint32_t p = 1; p < slots_.size(); ++p) sendDecision(p, round, kLivePostponed, 0, why);
    why.clear();
    return false;
  }
  // Only the source suspends: its rank departs, its other ranks are held
  // (its coordinator), and every other part is held here, unanswered.
  liveDeparture_.reset();
  liveStart_ = Clock::now();
  if (move.source == 0) {
    // This part: its coordinator departs the rank once this returns, and
    // departed() goes on with the round there.
    why.clear();
    return true;
  }
  sendDecision(move.source, round, 1, 0, {});
  if (!waitAsRank(lock, worldRank,
                  [&] { return liveDeparture_ && liveDeparture_->round == round; })) {
    aborted = true;
    return false;
  }
  Vote left = *liveDeparture_;
  if (!finishLiveRound(lock, worldRank, left, nullptr)) {
    aborted = true;
    return false;
  }
  why = "a live move took this control point";
  return false;
}

bool CheckpointAgreement::finishLiveRound(std::unique_lock<std::mutex>& lock, int worldRank,
                                          const Vote& left, const std::string_view* bytes) {
  using Clock = std::chrono::steady_clock;
  const LiveMove move = liveMove_;
  const uint64_t round = left.round;
  char head[160];
  std::snprintf(head, sizeof head, "live move of rank %u from part %u to part %u at control point %llu",
                move.rank, move.source, move.target, (unsigned long long)round);
  double leftMs = double(left.received) / 1000.0;
  std::string outcome;
  bool landed = false;
  double shipMs = 0;
  if (!left.canSuspend) {
    outcome = "not taken (" + left.why + ")";
  } else if (slots_[move.target].gone) {
    // It ended when its last rank left: nothing there can take one in.
    outcome = "not taken (part " + std::to_string(move.target) +
              " has had no rank since a live move)";
  } else {
    lock.unlock();
    RankSectionTransfer& transfer = link_->sectionTransfer();
    constexpr auto kShipLimit = std::chrono::seconds(30);
    std::string error;
    auto shipStart = Clock::now();
    bool announced =
        transfer.announce({round, move.rank, move.source, move.target, left.sent}, error);
    // Part 0 as the source lends its own bytes; they stay unchanged until
    // awaitDeparture, which waits for `lentReleased_`.
    if (announced && bytes) {
      {
        std::lock_guard<std::mutex> guard(mutex_);
        lentReleased_ = false;
      }
      announced = transfer.ship(
          round, reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(),
          [this] {
            std::lock_guard<std::mutex> guard(mutex_);
            lentReleased_ = true;
            changed_.notify_all();
          },
          error);
    }
    if (!announced) {
      outcome = "aborted (" + error + ")";
    } else {
      MoveOutcome result = transfer.waitOutcome(round, kShipLimit);
      if (result.state == MoveState::Landed) {
        landed = true;
      } else if (result.state == MoveState::Aborted) {
        outcome = "aborted (" + result.reason + ")";
      } else {
        transfer.abort(round, "not landed within 30 s");
        outcome = "aborted (not landed within 30 s)";
      }
    }
    shipMs = std::chrono::duration<double, std::milli>(Clock::now() - shipStart).count();
    lock.lock();
  }
  // Once the target has checked the section, part 0 switches every part's
  // routes to put the rank on the target (RouteSwitch; the source and the
  // target take it for this move alone), the source's rank leaves (kind
  // 3) and the target takes it in (kind kTakeIn). Any refusal, a lost part or a
  // rollback has the rank arrive again where it left, from the bytes the
  // source kept, and the routes stay.
  double checkMs = 0;
  bool taken = false;  // the routes switched: the rank runs on the target
  bool emptied = false;  // and its source part has no rank left
  bool claimed = false;  // a slot of the target's host taken for the rank
  std::string fromHost, toHost;
  if (landed) {
    // The target checks the section as an arrival would, held meanwhile.
    std::string refusal;
    if (move.target == 0) {
      lock.unlock();
      auto checkStart = Clock::now();
      refusal = checkLanded(round);
      checkMs = std::chrono::duration<double, std::milli>(Clock::now() - checkStart).count();
      lock.lock();
    } else {
      liveCheck_.reset();
      sendDecision(move.target, round, 4, 0, {});
      if (!waitAsRank(lock, worldRank, [&] { return liveCheck_ && liveCheck_->round == round; }))
        return false;
      refusal = liveCheck_->canSuspend ? std::string() : liveCheck_->why;
      checkMs = double(liveCheck_->received) / 1000.0;
    }
    if (!refusal.empty()) {
      outcome = "refused by part " + std::to_string(move.target) + " (" + refusal + ")";
    } else {
      // Part 0 must keep a rank, since it runs the agreement, unless it is
      // the last step of a move planned to empty it (movesOnly_); any other
      // part left without one leaves the job (its slot becomes `gone`).
      std::vector<uint32_t> table = link_->partOfRanks();
      size_t sourceRanks = 0;
      for (uint32_t part : table) sourceRanks += part == move.source;
      std::string why;
      double switchMs = 0;
      if (move.rank >= table.size() || table[move.rank] != move.source) {
        why = "rank " + std::to_string(move.rank) + " is not on part " +
              std::to_string(move.source) + " in the table in force";
      } else if (sourceRanks < 2 && move.source == 0 &&
                 !(movesOnly_ && seriesNext_ + 1 == series_.size())) {
        why = "part 0 would be left without a rank, and it runs the agreement";
      } else {
        table[move.rank] = move.target;
        uint64_t moveId = ++routeSwitches_;
        lock.unlock();
        auto switchStart = Clock::now();
        // The rank takes a slot of the target's host before it runs there:
        // a host with none left is never oversubscribed, the move is not
        // taken.
        why = claimMoveSlot(move.rank, move.target, fromHost, toHost);
        claimed = why.empty();
        if (claimed) taken = link_->switchRoutes(moveId, round, table, {}, why);
        switchMs = std::chrono::duration<double, std::milli>(Clock::now() - switchStart).count();
        lock.lock();
        emptied = taken && sourceRanks < 2;
      }
      outcome = "shipped, landed and checked by part " + std::to_string(move.target) + " in " +
                fixed1(checkMs) + " ms, ";
      outcome += taken ? "routes switched in " + fixed1(switchMs) + " ms"
                       : "not taken (" + why + ")";
    }
  }
  // The source's word: kind 3, the rank left (its thread there ends); 2,
  // it arrives again there from the bytes the source kept.
  if (move.source == 0) {
    liveWord_ = Decision{round, taken, 0, outcome, uint8_t(taken ? 3 : 2)};
    changed_.notify_all();
  } else {
    sendDecision(move.source, round, taken ? 3 : 2, 0, outcome);
  }
  if (emptied && move.source == 0) {
    // This part: its last rank's thread, this one, ends on the word above
    // and the process with it; the other parts meet only where a part 0
    // names (planLiveStep), so none waits for it again.
    std::fprintf(stderr,
                 "synergy-run: note: part 0 left the job with rank %u: no checkpoint or move is "
                 "taken from here on\n",
                 move.rank);
  } else if (emptied) {
    // Its last rank left: the source part leaves the job once its thread
    // has ended, and part 0 no longer waits for its votes (after the word
    // above, the last frame of the agreement it gets).
    PartSlot& slot = slots_[move.source];
    bool recounted = slot.recount && slot.recount->round == round;
    slot.goneSent = recounted ? slot.recount->sent : slot.vote->sent;
    slot.goneReceived = recounted ? slot.recount->received : slot.vote->received;
    slot.gone = true;
  }
  std::fprintf(stderr,
               "synergy-run: note: %s: left in %.1f ms (%llu bytes), ship %.1f ms, round %.1f ms: "
               "%s; rank %u %s part %u\n",
               head, leftMs, (unsigned long long)left.sent, shipMs,
               std::chrono::duration<double, std::milli>(Clock::now() - liveStart_).count(),
               outcome.c_str(), move.rank, taken ? "runs on" : "arrives again at",
               taken ? move.target : move.source);
  // The target takes the rank in on kind kTakeIn (part 0 as the target: its
  // coordinator asks takeArrivingRank once agree() returns).
  if (taken && move.target == 0) {
    arriving_.emplace(int(move.rank), std::move(checkedSection_));
    arrivingFrom_ = move.source;
  }
  if (move.target == 0) {
    checkedSection_.clear();
    checkedRound_ = 0;
  }
  for (uint32_t p = 1; p < slots_.size(); ++p)
    if (p != move.source) sendDecision(p, round, taken && p == move.target ? kTakeIn : 0, 0, {});
  // A move asked for goes on with its next step at a later control point
  // (agree), and is done with its last; a step not taken leaves the rest
  // to the restart path at the next control point.
  bool seriesDone = false;
  if (!series_.empty()) {
    seriesDone = taken && ++seriesNext_ == series_.size();
    if (!taken || seriesDone) {
      liveRefused_ = !taken;
      retryMigration_ = !taken;
      series_.clear();
      seriesNext_ = 0;
    }
  }
  if (seriesDone && migration_) {
    // The move asked for is done: no control point restarts the job for it.
    lock.unlock();
    migration_->takenLive("taken live at control point " + std::to_string(round));
    lock.lock();
  }
  if (claimed) {
    // The slots in the state store follow the rank, and so does where a
    // user sees it (synergy-cluster status) and where a restart would put
    // it: the job's rank -> host record.
    lock.unlock();
    settleMoveSlot(taken, move.rank, move.target, fromHost, toHost);
    lock.lock();
  }
  return true;
}

std::string CheckpointAgreement::claimMoveSlot(uint32_t rank, uint32_t target,
                                               std::string& fromHost, std::string& toHost) {
  try {
    ClusterState state(part_.state, kStateTimeout);
    std::vector<std::string> hosts = state.rankHosts(part_.jobId);
    std::vector<uint32_t> table = link_->partOfRanks();
    if (hosts.size() != table.size() || rank >= table.size())
      return "the job's rank -> host record has " + std::to_string(hosts.size()) +
             " ranks, not " + std::to_string(table.size());
    // The target's host: that of another of its ranks.
    toHost.clear();
    for (size_t other = 0; other < table.size() && toHost.empty(); ++other)
      if (other != rank && table[other] == target) toHost = hosts[other];
    if (toHost.empty())
      return "the job's rank -> host record names no host for part " + std::to_string(target);
    fromHost = hosts[rank];
    if (fromHost == toHost)
      return "the record names host " + toHost + " for both parts";
    std::string why;
    if (state.claimMovedRankSlot(part_.jobId, toHost, why) != ClaimOutcome::Claimed)
      return "no slot for rank " + std::to_string(rank) + " on part " + std::to_string(target) +
             ": " + why;
    return {};
  } catch (const StateStoreError& e) {
    return std::string("the cluster state did not take a slot for it: ") + e.what();
  }
}

void CheckpointAgreement::settleMoveSlot(bool taken, uint32_t rank, uint32_t target,
                                         const std::string& fromHost, const std::string& toHost) {
  try {
    ClusterState state(part_.state, kStateTimeout);
    if (taken)
      state.returnMovedRankSlot(part_.jobId, fromHost, rank, toHost);
    else
      state.returnMovedRankSlot(part_.jobId, toHost);
  } catch (const StateStoreError& e) {
    std::fprintf(stderr,
                 taken ? "synergy-run: note: rank %u runs on part %u, but the cluster state was "
                         "not updated (slots, the rank -> host record): %s\n"
                       : "synergy-run: note: rank %u stays off part %u, but the slot claimed for "
                         "it was not given back: %s\n",
                 rank, target, e.what());
  }
}

std::string CheckpointAgreement::checkLanded(uint64_t round) {
  uint32_t landedCrc = 0;
  std::shared_ptr<SectionBuffer> section = link_->sectionTransfer().takeLanded(round, &landedCrc);
  if (!section) return "no section landed here";
  // Test hook: SYNERGY_TEST_LIVE_MOVE_REFUSE=1 has the target refuse it;
  // =rank:R only a move of rank R (one step of a move of several ranks).
  const char* refuse = std::getenv("SYNERGY_TEST_LIVE_MOVE_REFUSE");
  if (refuse && std::strncmp(refuse, "rank:", 5) == 0)
    refuse = std::string(refuse + 5) == std::to_string(liveMove_.rank) ? "1" : nullptr;
  if (refuse && std::strcmp(refuse, "0"))
    return "SYNERGY_TEST_LIVE_MOVE_REFUSE has part " + std::to_string(part_.partIndex) +
           " refuse it";
  std::string error;
  std::string_view bytes(reinterpret_cast<const char*>(section->data()), size_t(section->size()));
  // The transport computed the CRC-32C chunk by chunk as they landed: the
  // stated one is compared with it, not computed again.
  std::optional<checkpoint::RankImage> image = checkpoint::decodeDepartingRank(
      bytes, liveMove_.rank, uint32_t(part_.worldSize()), uint32_t(grantCount_), error,
      landedCrc);
  if (!image) return error;
  image.reset();  // its memory runs are views of the section
  std::lock_guard<std::mutex> guard(mutex_);
  checkedRound_ = round;
  // Kept where it landed: the arrival reads it from there.
  checkedSection_.clear();
  checkedSection_.landed = bytes;
  checkedSection_.landedCrc = landedCrc;
  checkedSection_.pagesMayMove = true;  // the transport's mapping, given up to this part
  checkedSection_.keeper = std::move(section);
  return {};
}

bool CheckpointAgreement::takeArrivingRank(int& worldRank, checkpoint::DepartingBytes& bytes) {
  uint32_t source = 0;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!arriving_) return false;
    worldRank = arriving_->first;
    bytes = std::move(arriving_->second);
    arriving_.reset();
    source = arrivingFrom_;
  }
  // Before any of the rank's bytes here: the client holds this part's
  // output until it has the rank's earlier lines from the source
  // (OutputNotes.h).
  std::string error;
  if (!noteOutputHold(uint32_t(worldRank), source, error))
    std::fprintf(stderr,
                 "synergy-run: note: rank %d's output on part %u may come before its earlier "
                 "lines from part %u (%s)\n",
                 worldRank, part_.partIndex, source, error.c_str());
  return true;
}

static_assert(mpi::BarrierControlPoint::kMaxCarriedTailBytes ==
              transport::kMaxRankOutputTailBytes);

void CheckpointAgreement::sendOutputTails(int worldRank,
                                          const std::array<std::string, 2>& tails) {
  uint32_t target = 0;
  uint64_t round = 0;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!liveMove_.set || liveMove_.source != part_.partIndex) return;
    target = liveMove_.target;
    round = round_;
  }
  std::vector<uint8_t> payload;
  util::appendLittleEndian(payload, round, 8);
  util::appendLittleEndian(payload, uint32_t(worldRank), 4);
  for (const std::string& tail : tails) {
    // OutputForwarding::holdTails keeps no longer tail back.
    size_t bytes = std::min<size_t>(tail.size(), transport::kMaxRankOutputTailBytes);
    util::appendLittleEndian(payload, uint32_t(bytes), 4);
    payload.insert(payload.end(), tail.begin(), tail.begin() + ptrdiff_t(bytes));
  }
  // Ahead of the rank's bytes, on the same connection to the target.
  link_->sendToPart(target, transport::FrameType::RankOutputTails, std::move(payload));
}

bool CheckpointAgreement::takeOutputTails(int worldRank, std::array<std::string, 2>& tails) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (!arrivingTails_ || arrivingTails_->first != worldRank) return false;
  tails = std::move(arrivingTails_->second);
  arrivingTails_.reset();
  return true;
}

void CheckpointAgreement::departed(int worldRank, std::string_view bytes, double leftMs,
                                   const std::string& why) {
  uint64_t round = 0;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    round = round_;
    departedRound_ = round;
    liveWord_.reset();
    lentReleased_ = bytes.empty();
  }
  Vote left{round, !bytes.empty(), bytes.size(), uint64_t(leftMs * 1000.0),
            bytes.empty() ? "rank " + std::to_string(worldRank) + ": " + why : std::string()};
  if (part_.partIndex == 0) {
    // Part 0 is the source: the round goes on here, on the departing
    // rank's thread, the other parts still held.
    std::unique_lock<std::mutex> lock(mutex_);
    if (!finishLiveRound(lock, worldRank, left, &bytes)) {
      lentReleased_ = true;  // the job ends; awaitDeparture sees it
      liveWord_ = Decision{round, false, 0, "the job ended", 2};
    }
    changed_.notify_all();
    return;
  }
  sendVote(3, left);
  if (bytes.empty()) return;
  // Lent once part 0 has announced the move here; part 0 may instead give
  // its word at once (a move it could not announce).
  RankSectionTransfer& transfer = link_->sectionTransfer();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    if (transfer.outcome(round).state != MoveState::Unknown) break;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (liveWord_ || world_->aborted() || std::chrono::steady_clock::now() >= deadline) {
        lentReleased_ = true;
        changed_.notify_all();
        return;
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::string error;
  auto released = [this] {
    std::lock_guard<std::mutex> guard(mutex_);
    lentReleased_ = true;
    changed_.notify_all();
  };
  if (!transfer.ship(round, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                     released, error))
    std::fprintf(stderr, "synergy-run: note: rank %d's state not shipped (%s)\n", worldRank,
                 error.c_str());
}

bool CheckpointAgreement::awaitDeparture(int worldRank, bool& leaves, std::string& error) {
  std::unique_lock<std::mutex> lock(mutex_);
  // Part 0's word for this departure's round: any other is not taken.
  if (!waitFor(lock, [&] {
        return liveWord_.has_value() && liveWord_->round == departedRound_ && lentReleased_;
      })) {
    error = "the job ended during the live move of rank " + std::to_string(worldRank);
    return false;
  }
  leaves = liveWord_->suspend;
  lock.unlock();
  // The rank's whole lines left through this part's output before it
  // departed, its unfinished ones with it: the client may print its lines
  // from the target after this (OutputNotes.h).
  if (leaves) noteOutputMark(uint32_t(worldRank));
  return true;
}

void CheckpointAgreement::sendPartFile(uint64_t sequence,
                                       const std::vector<std::string_view>& pieces) {
  checkpoint::forEachPartChunk(sequence, pieces, [&](std::vector<uint8_t> chunk) {
    link_->sendToPart(0, transport::FrameType::CheckpointPartData, std::move(chunk));
  });
}

std::optional<std::string> CheckpointAgreement::receivedPartFile(uint32_t part,
                                                                 uint64_t sequence) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (part == 0 || part >= slots_.size()) return std::nullopt;
  return slots_[part].partFile.takeWhole(sequence);
}

bool CheckpointAgreement::copyCommitted(uint64_t sequence, std::string_view file,
                                        const std::vector<checkpoint::PartOutput>& outputs,
                                        std::string& error) {
  if (slots_.size() < 2) return mirrorCommitted(sequence, file, outputs);
  {
    std::lock_guard<std::mutex> guard(mutex_);
    copyAck_.reset();
  }
  checkpoint::forEachPartChunk(sequence, {file}, [&](std::vector<uint8_t> chunk) {
    link_->sendToPart(1, transport::FrameType::CheckpointCopy, std::move(chunk));
  });
  std::unique_lock<std::mutex> lock(mutex_);
  // Part 1 may have finished and left before the copy reached it (its
  // ranks ended while this part still wrote): nothing answers then, and
  // the job is over but for this wait, which the closed connection ends.
  bool closed = false;
  if (!waitFor(lock, [&] {
        closed = !copyAck_ && link_->partClosed(1);
        return copyAck_.has_value() || closed;
      })) {
    error = "the job ended before part 1 answered";
    return false;
  }
  if (closed) {
    error = "part 1 left the job before it answered";
    return false;
  }
  if (copyAck_->sequence != sequence || !copyAck_->written) {
    error = "part 1 could not write it";
    return false;
  }
  lock.unlock();
  if (!resumed_) dieIfTestLosesHostAfterCopy(sequence);
  recordHolders(sequence, outputs);
  return true;
}

void CheckpointAgreement::writeCopy(std::string file, uint64_t sequence) {
  std::string error;
  bool written = checkpoint::storeCheckpointCopy(copyDirectory_, file, sequence, error);
  if (!written)
    std::fprintf(stderr, "synergy-run: note: the copy of checkpoint %llu is not kept (%s)\n",
                 (unsigned long long)sequence, error.c_str());
  std::vector<uint8_t> ack;
  util::appendLittleEndian(ack, sequence, 8);
  ack.push_back(written ? 1 : 0);
  link_->sendToPart(0, transport::FrameType::CheckpointCopy, std::move(ack));
}

bool CheckpointAgreement::mirrorCommitted(uint64_t sequence, std::string_view file,
                                          const std::vector<checkpoint::PartOutput>& outputs) {
  if (copyDirectory_.empty() || mirrorName_.empty()) return true;
  std::string own;
  try {
    if (!redis_) redis_.emplace(part_.state, kStateTimeout);
    // A job on one host has no address table: its host is the job's.
    std::vector<std::string> fields =
        replyStrings(*redis_->command({"HGETALL", "synergy:job:" + std::to_string(part_.jobId)}));
    for (size_t i = 0; i + 1 < fields.size(); i += 2)
      if (fields[i] == "host") own = fields[i + 1];
    if (!isValidHostId(own))
      throw StateStoreError("job " + std::to_string(part_.jobId) + " has no valid host");
  } catch (const StateStoreError& e) {
    std::fprintf(stderr, "synergy-run: note: cannot record checkpoint %llu's holders: %s\n",
                 (unsigned long long)sequence, e.what());
    return true;
  }
  std::vector<std::string> holders{own};
  std::string why;
  if (sendToMirror(sequence, file, own, why)) {
    holders.push_back(mirrorHost_);
    mirrorNote_.clear();
    if (!resumed_) dieIfTestLosesHostAfterCopy(sequence);
  } else if (why != mirrorNote_) {
    // Once for each new reason, not at every checkpoint.
    std::fprintf(stderr,
                 "synergy-run: note: checkpoint %llu has one holder, %s: no second copy (%s)\n",
                 (unsigned long long)sequence, own.c_str(), why.c_str());
    mirrorNote_ = why;
  }
  recordHolders(sequence, outputs, holders);
  return true;
}

bool CheckpointAgreement::sendToMirror(uint64_t sequence, std::string_view file,
                                       const std::string& ownHost, std::string& why) {
  // A copy of up to a few hundred MiB over loopback or a LAN.
  constexpr auto kAnswerLimit = std::chrono::seconds(60);
  bool closed = false;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    closed = mirrorClosed_;
    mirrorAck_.reset();
  }
  if (!mirrorConnection_ || closed) {
    mirrorConnection_.reset();
    std::vector<HostRecord> candidates;
    try {
      ClusterState state(part_.state);
      for (HostRecord& host : state.hosts())  // sorted by id
        if (!host.draining && host.id != ownHost) candidates.push_back(std::move(host));
    } catch (const StateStoreError& e) {
      why = std::string("cannot read the cluster's hosts: ") + e.what();
      return false;
    }
    if (candidates.empty()) {
      why = "no other live, undrained host";
      return false;
    }
    if (!mirrorTransport_) {
      std::string token;
      if (!transport::readClusterToken(part_.tokenFile, token, why)) return false;
      mirrorTransport_ = std::make_unique<transport::Transport>(transport::TransportConfig{
          .token = token,
          .onFrame = [this](transport::Connection&, transport::Frame&& frame,
                            std::string& reason) {
            if (frame.type != transport::FrameType::CheckpointMirror ||
                frame.payload.size() != transport::kCheckpointCopyAckBytes ||
                frame.payload[8] > 1) {
              reason = "malformed answer to CheckpointMirror";
              return false;
            }
            std::lock_guard<std::mutex> guard(mutex_);
            mirrorAck_ = CopyAck{util::readLittleEndian(frame.payload.data(), 8),
                                 frame.payload[8] == 1};
            changed_.notify_all();
            return true;
          },
          .onClosed =
              [this](transport::Connection&) {
                std::lock_guard<std::mutex> guard(mutex_);
                mirrorClosed_ = true;
                changed_.notify_all();
              },
          .log = {}});
    }
    // The first by id that can be reached: one whose daemon died may stay
    // registered until its entry expires.
    std::vector<std::string> failures;
    for (const HostRecord& candidate : candidates) {
      std::string address, error;
      uint16_t port = 0;
      if (!splitJobEndpoint(candidate.address, address, port)) {
        failures.push_back("host " + candidate.id + " has a malformed address");
        continue;
      }
      {
        std::lock_guard<std::mutex> guard(mutex_);
        mirrorClosed_ = false;
      }
      mirrorConnection_ = mirrorTransport_->connectionTo(address, port, error);
      if (mirrorConnection_) {
        mirrorHost_ = candidate.id;
        break;
      }
      failures.push_back("host " + candidate.id + ": " + error);
    }
    if (!mirrorConnection_) {
      why.clear();
      for (const std::string& failure : failures) why += (why.empty() ? "" : "; ") + failure;
      return false;
    }
  }
  std::vector<uint8_t> head;
  util::appendLittleEndian(head, part_.jobId, 8);
  util::appendLittleEndian(head, mirrorName_.size(), 4);
  head.insert(head.end(), mirrorName_.begin(), mirrorName_.end());
  checkpoint::forEachPartChunk(sequence, {file}, [&](std::vector<uint8_t> chunk) {
    std::vector<uint8_t> payload = head;
    payload.insert(payload.end(), chunk.begin(), chunk.end());
    mirrorConnection_->send(transport::FrameType::CheckpointMirror, std::move(payload));
  });
  std::unique_lock<std::mutex> lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() + kAnswerLimit;
  bool answered = waitFor(lock, [&] {
    return mirrorAck_.has_value() || mirrorClosed_ || std::chrono::steady_clock::now() >= deadline;
  });
  if (!answered) {
    why = "the job ended before host " + mirrorHost_ + " answered";
    return false;
  }
  if (!mirrorAck_) {
    why = mirrorClosed_ ? "host " + mirrorHost_ + " closed the connection (see its log)"
                        : "host " + mirrorHost_ + " did not answer";
    mirrorClosed_ = true;  // the next checkpoint connects afresh
    return false;
  }
  if (mirrorAck_->sequence != sequence || !mirrorAck_->written) {
    why = "host " + mirrorHost_ + " could not keep it (see its log)";
    return false;
  }
  return true;
}

void CheckpointAgreement::recordHolders(uint64_t sequence,
                                        const std::vector<checkpoint::PartOutput>& outputs,
                                        std::vector<std::string> hostIds) {
  CheckpointHolders holders;
  holders.sequence = sequence;
  holders.stdoutBytes.assign(slots_.size(), 0);
  for (const checkpoint::PartOutput& output : outputs)
    if (output.part < holders.stdoutBytes.size())
      holders.stdoutBytes[output.part] = output.stdoutBytes;
  try {
    if (!redis_) redis_.emplace(part_.state, kStateTimeout);
    holders.hostIds = hostIds.empty()
                          ? partHostIds(*redis_, part_.jobId, link_->partOfRanks(), {0, 1})
                          : std::move(hostIds);
    recordCheckpointHolders(*redis_, part_.jobId, holders);
  } catch (const StateStoreError& e) {
    // The copies are there; only a restart elsewhere would miss the record.
    std::fprintf(stderr, "synergy-run: note: cannot record checkpoint %llu's holders: %s\n",
                 (unsigned long long)sequence, e.what());
  }
}

void CheckpointAgreement::partWritten(uint64_t sequence, bool written,
                                      const checkpoint::PartOutput& output) {
  std::vector<uint8_t> payload;
  util::appendLittleEndian(payload, sequence, 8);
  payload.push_back(written ? 1 : 0);
  util::appendLittleEndian(payload, output.stdoutBytes, 8);
  link_->sendToPart(0, transport::FrameType::CheckpointWritten, std::move(payload));
}

bool CheckpointAgreement::gatherWritten(uint64_t sequence,
                                        std::vector<checkpoint::PartOutput>& outputs,
                                        std::string& error) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto allWritten = [&] {
    for (uint32_t p = 1; p < slots_.size(); ++p)
      if (!slots_[p].gone && (!slots_[p].written || slots_[p].written->sequence != sequence))
        return false;
    return true;
  };
  if (!waitFor(lock, allWritten)) {
    error = "the job ended before every host had written its part";
    return false;
  }
  for (uint32_t p = 1; p < slots_.size(); ++p) {
    if (slots_[p].gone) continue;  // no rank since a live move: nothing to write
    if (!slots_[p].written->written) {
      error = "part " + std::to_string(p) + " could not write its ranks' sections";
      return false;
    }
    outputs.push_back({part_.jobId, p, slots_[p].written->stdoutBytes});
  }
  return true;
}

void CheckpointAgreement::checkpointOver(uint64_t sequence,
                                         const std::function<bool()>& awaitCommitted) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (migrationRound_ == 0 || migrationRound_ != round_) return;
  bool stop = false;
  if (part_.partIndex == 0) {
    lock.unlock();
    // The file is written in the background and gathers the other parts'
    // sections through this agreement's lock: wait for it without the
    // lock. A resume that would refuse it must be found out while every
    // rank can still go on: the same checks, on the file as written.
    bool committed = awaitCommitted();
    std::string refusal;
    if (committed && resumeCheck_) refusal = resumeCheck_();
    std::string reason;
    if (!committed)
      reason = "its checkpoint was not written";
    else if (!refusal.empty())
      reason = "its checkpoint could not be resumed (" + refusal + ")";
    stop = migration_->finished(reason.empty(), reason);
    for (uint32_t p = 1; p < slots_.size(); ++p) {
      std::vector<uint8_t> payload;
      util::appendLittleEndian(payload, sequence, 8);
      payload.push_back(stop ? 1 : 0);
      link_->sendToPart(p, transport::FrameType::MigrationOutcome, std::move(payload));
    }
  } else {
    if (!waitFor(lock, [&] { return migrationOutcome_ && migrationOutcome_->sequence == sequence; }))
      return;
    stop = migrationOutcome_->stop;
  }
  if (stop) endToBeMoved();
}

void CheckpointAgreement::endToBeMoved() {
  // Every rank stands still and its output has been drained; leaving
  // writes out the frames still queued (part 0's outcome among them).
  link_->leave();
  if (const char* stats = std::getenv("SYNERGY_MIGRATION_STATS"); stats && std::strcmp(stats, "0"))
    std::fprintf(stderr,
                 "synergy-run: migration stats: part %u: its ranks unwound, captured and written "
                 "in %.1f ms (from the decision to its end)\n",
                 part_.partIndex,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                           migrationStart_)
                     .count());
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(kMigratedExitStatus);
}

PartCheckpoints::PartCheckpoints(const JobPart& part, const PartCheckpointing& how,
                                 const mpi::JobOptions& job, const checkpoint::Digest& digest)
    : agreement_(part), coordinator_(job.ranks, how.policy, digest, job.worldRanks) {
  agreement_.setMovesOnly(how.policy.intervalSeconds >= kMoveOnlyCheckpointIntervalSeconds);
}

std::unique_ptr<PartCheckpoints> PartCheckpoints::create(const JobPart& part,
                                                         const PartCheckpointing& how,
                                                         mpi::JobOptions& job,
                                                         std::string& error) {
  constexpr size_t kMaxProgramBytes = size_t(1) << 30;
  std::optional<std::string> program = util::readRegularFile(job.program, kMaxProgramBytes, error);
  if (!program) return nullptr;
  util::Sha256 hash;
  hash.update(*program);
  std::unique_ptr<PartCheckpoints> checkpoints(
      new PartCheckpoints(part, how, job, hash.digest()));
  if (how.resume && how.policy.hostLocalDirectory && part.partIndex != 0) {
    checkpoints->agreement_.expectResumeFile();
    PartCheckpoints* self = checkpoints.get();
    checkpoints->coordinator_.resumeOnArrival(
        [self, path = job.program, ranks = size_t(part.worldSize())](std::string& error) {
          return self->receivedImage(path, ranks, error);
        });
  } else if (how.resume) {
    auto start = std::chrono::steady_clock::now();
    checkpoints->image_ = checkpoint::readRecordedCheckpoint(
        how.policy.directory, job.program, how.resumeSequence, error,
        how.policy.hostLocalDirectory ? &checkpoints->resumeFile_ : nullptr);
    if (!checkpoints->image_) return nullptr;
    // A moved job's parts restore from here (Migration.h).
    if (const char* stats = std::getenv("SYNERGY_MIGRATION_STATS"); stats && std::strcmp(stats, "0"))
      std::fprintf(stderr,
                   "synergy-run: migration stats: part %u: read and checked the checkpoint in "
                   "%.1f ms\n",
                   part.partIndex,
                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                       .count());
    if (checkpoints->image_->ranks.size() != size_t(part.worldSize())) {
      error = "the checkpoint holds " + std::to_string(checkpoints->image_->ranks.size()) +
              " ranks, not the job's " + std::to_string(part.worldSize());
      return nullptr;
    }
    checkpoints->coordinator_.resumeFrom(&*checkpoints->image_);
  }
  checkpoint::JobRecord record;
  record.program = how.clientProgram;
  record.args = job.config.args;
  record.env = job.config.env;
  // The grants as this host opened them for the job: the directories the
  // client's grants resolved to, which a resumed job is granted again.
  for (const granule::Preopen& preopen : job.config.preopens)
    record.grants.push_back(checkpoint::recordedGrant(preopen));
  checkpoints->coordinator_.setJob(record);
  checkpoints->coordinator_.setHostParts(&checkpoints->agreement_);
  checkpoints->agreement_.setGrantCount(record.grants.size());
  int moveRank = 0;
  uint64_t moveAt = 0;
  const char* costs = std::getenv("SYNERGY_LIVE_MOVE_STATS");
  const bool printCosts = costs && std::strcmp(costs, "0");
  if (checkpoints->agreement_.liveMoveDepartsHere(moveRank, moveAt))
    checkpoints->coordinator_.setLiveMove(moveRank, moveAt, printCosts);
  else
    checkpoints->coordinator_.setMoveCostsPrinted(printCosts);
  checkpoints->agreement_.setLiveMovePlanned(
      [coordinator = &checkpoints->coordinator_, printCosts](int rank, uint64_t at) {
        coordinator->setLiveMove(rank, at, printCosts);
      });
  if (how.policy.hostLocalDirectory) {
    checkpoints->agreement_.setCopyDirectory(how.policy.directory);
    checkpoints->agreement_.setMirrorName(how.mirrorName);
  }
  checkpoints->agreement_.setResumed(how.resume);
  checkpoints->agreement_.setResumeCheck([directory = how.policy.directory, program = job.program] {
    std::string refusal;
    checkpoint::readResumableCheckpoint(directory, program, refusal);
    return refusal;
  });
  job.barrierControlPoint = &checkpoints->coordinator_;
  return checkpoints;
}

const checkpoint::CheckpointImage* PartCheckpoints::receivedImage(const std::string& program,
                                                                  size_t ranks,
                                                                  std::string& error) {
  uint64_t sequence = 0;
  std::optional<std::string> file = agreement_.receiveResumeFile(sequence, error);
  if (!file) return nullptr;
  std::string origin = "the checkpoint " + std::to_string(sequence) + " part 0 sent";
  image_ = checkpoint::resumableCheckpoint(std::move(*file), origin, program, error);
  if (!image_) return nullptr;
  if (image_->sequence != sequence || image_->ranks.size() != ranks) {
    error = "cannot resume from " + origin + ": it is checkpoint " +
            std::to_string(image_->sequence) + " of " + std::to_string(image_->ranks.size()) +
            " ranks, not of the job's " + std::to_string(ranks);
    return nullptr;
  }
  return &*image_;
}

void PartCheckpoints::attach(MpiPeerLink* link, const std::string& joinError) {
  if (!link) {
    agreement_.joinFailed(joinError);
    return;
  }
  agreement_.attach(*link);
  if (!resumeFile_.empty()) {
    agreement_.sendResumeFile(resumeFile_, image_->sequence);
    std::string().swap(resumeFile_);
  }
}

}  // namespace synergy::cluster

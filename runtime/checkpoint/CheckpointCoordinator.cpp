//===- CheckpointCoordinator.cpp - consistent checkpoints of an MPI job ----===//
//
// This file implements the agreement at a barrier control point and the
// writing of one checkpoint file per suspension (see the header).
//
//===----------------------------------------------------------------------===//
#include "checkpoint/CheckpointCoordinator.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>

#include "checkpoint/DurableReplace.h"
#include "checkpoint/MpiObjectRecord.h"
#include "checkpoint/OpenFileRecord.h"
#include "checkpoint/PartFile.h"
#include "checkpoint/RankMove.h"
#include "util/Crc32c.h"
#include "util/FileIO.h"
#include "granule/Granule.h"
#include "mpi/RankState.h"
#include "snapshot/DirtyTracker.h"
#include "snapshot/Snapshot.h"
#include "wasm-rt.h"

namespace synergy::checkpoint {

namespace {

// The CPU time the calling thread has used, in nanoseconds.
uint64_t threadCpuNanoseconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return uint64_t(now.tv_sec) * 1000000000u + uint64_t(now.tv_nsec);
}

// The launcher's offset in `fd` when it is a regular file, else -1.
int64_t regularFileOffset(int fd) {
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return -1;
  off_t at = lseek(fd, 0, SEEK_CUR);
  return at < 0 ? -1 : int64_t(at);
}

// The CRC-32C of the pieces `indices` name, back to back, from each one's
// (`checksums`) and its length.
uint32_t checksumOfPieces(const std::vector<uint32_t>& checksums,
                          const std::vector<uint64_t>& sizes, const std::vector<uint32_t>& indices) {
  uint32_t checksum = 0;  // of nothing
  for (uint32_t index : indices)
    checksum = util::Crc32c::combine(checksum, checksums[index], sizes[index]);
  return checksum;
}

std::vector<uint32_t> allIndices(size_t count) {
  std::vector<uint32_t> indices(count);
  std::iota(indices.begin(), indices.end(), 0u);
  return indices;
}

// The first `bytes` of the file open at `fd` (fewer at its end) into `into`.
bool readPrefix(int fd, size_t bytes, std::string& into) {
  into.resize(bytes);
  size_t got = 0;
  while (got < bytes) {
    ssize_t n = pread(fd, into.data() + got, bytes - got, off_t(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    got += size_t(n);
  }
  into.resize(got);
  return true;
}

std::vector<ReplacePiece> piecesOf(const std::vector<std::string>& sections) {
  std::vector<ReplacePiece> pieces;
  pieces.reserve(sections.size());
  for (const std::string& section : sections) pieces.push_back(ReplacePiece{section});
  return pieces;
}

// Removes every part file (PartFile.h) in `directory` and its spare.
void removePartFiles(const std::string& directory) {
  DIR* entries = opendir(directory.c_str());
  if (!entries) return;
  const std::string prefix = partFileName(0).substr(0, partFileName(0).size() - 1);
  const std::string spareSuffix = ".spare";
  while (dirent* entry = readdir(entries)) {
    std::string_view name = entry->d_name;
    if (name.substr(0, prefix.size()) != prefix) continue;
    std::string_view number = name.substr(prefix.size());
    if (number.size() > spareSuffix.size() &&
        number.substr(number.size() - spareSuffix.size()) == spareSuffix)
      number.remove_suffix(spareSuffix.size());
    if (!number.empty() && number.find_first_not_of("0123456789") == std::string_view::npos)
      unlinkat(dirfd(entries), entry->d_name, 0);
  }
  closedir(entries);
}

// Closes the descriptors it holds when it goes.
struct OpenFiles {
  std::vector<int> fds;
  ~OpenFiles() {
    for (int fd : fds) close(fd);
  }
};

// The world ranks 0 .. ranks - 1, those of a job on one host.
std::vector<int> firstRanks(int ranks) {
  std::vector<int> worldRanks(static_cast<size_t>(ranks));
  std::iota(worldRanks.begin(), worldRanks.end(), 0);
  return worldRanks;
}

}  // namespace

CheckpointCoordinator::CheckpointCoordinator(int ranks, CheckpointPolicy policy,
                                             const Digest& programDigest,
                                             std::vector<int> worldRanks)
    : ranks_(ranks),
      worldRanks_(worldRanks.empty() ? firstRanks(ranks) : std::move(worldRanks)),
      policy_(std::move(policy)),
      programDigest_(programDigest),
      sections_(size_t(ranks)),
      lastCheckpointNs_(std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count()) {
  // Test hook, for the resume tests only: SYNERGY_CHECKPOINT_KILL_AFTER=N
  // kills this process with SIGKILL right after it has written its Nth
  // checkpoint file, as a host crash would, leaving that checkpoint behind
  // (in a job spread over hosts, part 0, which writes the file).
  if (const char* kill = std::getenv("SYNERGY_CHECKPOINT_KILL_AFTER"))
    killAfter_ = std::strtoull(kill, nullptr, 10);
  // With SYNERGY_CHECKPOINT_TEAR_NEXT=1 as well, the process lives on past
  // that checkpoint and dies in the middle of the next one's write instead:
  // every section is on disk in the recycled file, but not its head (which
  // holds the checksum) nor the rename that would make it the checkpoint.
  if (const char* tear = std::getenv("SYNERGY_CHECKPOINT_TEAR_NEXT"))
    tearNext_ = killAfter_ > 0 && std::strcmp(tear, "0") != 0;
  spareSections_.resize(size_t(ranks));
  rankUnresumable_.resize(size_t(ranks));
  rankUnmovable_.resize(size_t(ranks));
  controlPointSlots_ = worldRanks_.empty() ? 0 : size_t(worldRanks_.back()) + 1;
  controlPointsReached_ = std::make_unique<ControlPointCount[]>(controlPointSlots_);
}

CheckpointCoordinator::~CheckpointCoordinator() {
  // The spare of the last commit is no checkpoint; only a next one would
  // have used it.
  backgroundWrites_.finish();
  if (!policy_.directory.empty() && (!hostParts_ || hostParts_->partIndex() == 0)) {
    unlink(spareFilePath(policy_.directory, kCheckpointFileName).c_str());
    // Nor are the part files and their spares, which only the next
    // checkpoint would have read: every part's writes were over before part
    // 0's last commit. Those of parts a lost host's job had and this run
    // has not go too.
    if (hostParts_) removePartFiles(policy_.directory);
  } else if (hostParts_ && policy_.hostLocalDirectory) {
    // This host's own directory: its part file is not read after the
    // job, part 0 took its copy over the transport.
    unlink((policy_.directory + "/" + partFileName(hostParts_->partIndex())).c_str());
    unlink(spareFilePath(policy_.directory, partFileName(hostParts_->partIndex())).c_str());
  }
}

void CheckpointCoordinator::noteStateNotCheckpointed(int worldRank, const std::string& what,
                                                     const std::string& notMovable) {
  std::lock_guard<std::mutex> guard(mutex_);
  std::string& noted = rankUnresumable_[localIndexOf(worldRank)];
  if (what.empty()) noted.clear();
  else noted = "rank " + std::to_string(worldRank) + ": " + what;
  std::string& unmovable = rankUnmovable_[localIndexOf(worldRank)];
  if (notMovable.empty()) unmovable.clear();
  else unmovable = "rank " + std::to_string(worldRank) + ": " + notMovable;
}

void CheckpointCoordinator::setOutputDrain(std::function<void()> drain) {
  std::lock_guard<std::mutex> guard(mutex_);
  drainOutput_ = std::move(drain);
}

void CheckpointCoordinator::setOutputCount(std::function<uint64_t()> count) {
  std::lock_guard<std::mutex> guard(mutex_);
  outputCount_ = std::move(count);
}

void CheckpointCoordinator::setQuiescenceCheck(std::function<std::string()> check) {
  std::lock_guard<std::mutex> guard(mutex_);
  quiescenceCheck_ = std::move(check);
}

void CheckpointCoordinator::setUnfinishedLineCheck(std::function<std::string()> check) {
  std::lock_guard<std::mutex> guard(mutex_);
  unfinishedLineCheck_ = std::move(check);
}

void CheckpointCoordinator::setOutputHandOver(OutputHandOver handOver) {
  std::lock_guard<std::mutex> guard(mutex_);
  outputHandOver_ = std::move(handOver);
}

void CheckpointCoordinator::setRankWaiting(RankWaiting waiting) {
  std::lock_guard<std::mutex> guard(mutex_);
  rankWaiting_ = std::move(waiting);
}

bool CheckpointCoordinator::prepareRank(int worldRank, granule::Granule& granule,
                                        std::string& error) {
  if (awaitResume_) {
    const CheckpointImage* image = std::exchange(awaitResume_, nullptr)(error);
    if (!image) return false;
    resumeFrom(image);
  }
  if (!resumeFrom_) return true;
  if (worldRank < 0 || size_t(worldRank) >= resumeFrom_->ranks.size()) {
    error = "the checkpoint holds no rank " + std::to_string(worldRank);
    return false;
  }
  if (!contextDrawsResumed_) {
    resumeContextDraws(resumeFrom_->ranks, *granule.extension<mpi::RankState>().world);
    contextDrawsResumed_ = true;
  }
  return restoreRank(resumeFrom_->ranks[size_t(worldRank)], granule, resumedComms_, error);
}

template <typename Last>
bool CheckpointCoordinator::meet(int worldRank, std::unique_lock<std::mutex>& lock, Last&& last) {
  assert(rankWaiting_.wait && rankWaiting_.wake && "the launcher sets the rank waiting first");
  uint64_t generation = generation_.load();
  if (++arrived_ == ranks_) {
    last();
    arrived_ = 0;
    ++generation_;
    for (int rank : waiting_) rankWaiting_.wake(rank);
    waiting_.clear();
    return true;
  }
  waiting_.push_back(worldRank);
  auto released = [&] { return generation_.load() != generation; };
  lock.unlock();
  bool alive = rankWaiting_.wait(worldRank, released);
  lock.lock();
  return alive;
}

bool CheckpointCoordinator::due() const {
  if (policy_.intervalSeconds <= 0) return true;
  // Asked by every rank at every control point: the coarse clock (the same
  // clock at the kernel tick's resolution, a few ms) reads in 8 ns here
  // against 64 for the fine one, and a checkpoint falls due at most a tick
  // late.
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  const int64_t since = int64_t(now.tv_sec) * 1000000000 + now.tv_nsec - lastCheckpointNs_.load();
  return double(since) >= policy_.intervalSeconds * 1e9;
}

size_t CheckpointCoordinator::localIndexOf(int worldRank) const {
  return size_t(std::lower_bound(worldRanks_.begin(), worldRanks_.end(), worldRank) -
                worldRanks_.begin());
}

bool CheckpointCoordinator::meetsHere(size_t localIndex, uint64_t reached) {
  // On one host at an interval: see the header comment.
  if (meetingAt_ == 0 && due() && backgroundWrites_.idle()) {
    // A rank that has reached this control point too has gone on past it;
    // one that has not yet will stop here. Named before the counts are
    // read: a rank that counts without the lock reads it after its count
    // (agreeToSuspend), so either it sees the name or its count is read.
    meetingNamed_ = true;
    uint64_t passed = 0;
    for (size_t i = 0; i < worldRanks_.size(); ++i)
      if (i != localIndex)
        passed = std::max(passed, controlPointsReached_[size_t(worldRanks_[i])].load());
    meetingAt_ = std::max(reached, passed + 1);
  }
  return reached == meetingAt_;
}

bool CheckpointCoordinator::agreeToSuspend(
    int worldRank,
    util::FunctionRef<bool(std::string& why, bool& canMoveLive)> rankCanSuspend) {
  const uint64_t reached = ++controlPointsReached_[size_t(worldRank)];
  // At an interval, with no live move to take, a rank goes on past a
  // control point where the ranks do not meet without taking the lock:
  // ranks that all took it after each collective waited for each other
  // there (bench/mpi/kernels.c reduce at np 4 spent a third more CPU with
  // no checkpoint due, most of it in futex calls).
  // Over hosts part 0 names the control points where the ranks meet, a
  // live move's among them (CheckpointAgreement.h): a part whose rank is
  // to depart meets only there too, and counts the others under the lock.
  bool partsMeet = true;
  if (policy_.intervalSeconds > 0 && hostParts_) {
    bool dueHere = hostParts_->partIndex() == 0 && due() && backgroundWrites_.idle();
    partsMeet = hostParts_->meetsAt(worldRank, reached, dueHere);
    if (!partsMeet && liveMoveRank_ < 0) return false;
  } else if (liveMoveRank_ < 0 && policy_.intervalSeconds > 0 && !meetingNamed_.load() &&
             !due()) {
    return false;
  }
  // Asked only here, where this rank may meet the others: at a control
  // point it passes alone the rank's state is not looked at (its MPI
  // objects, its requests, the module's exports) and noteStateNotCheckpointed
  // takes no lock.
  std::string why;
  bool rankCanMoveLive = false;
  const bool canSuspend = rankCanSuspend(why, rankCanMoveLive);
  rankCanMoveLive = rankCanMoveLive || canSuspend;
  std::unique_lock<std::mutex> lock(mutex_);
  // worldRanks_ changes only under the lock (addRank, dropRank).
  const size_t localIndex = localIndexOf(worldRank);
  // Every rank stops where a live move is to be taken; at an interval of 0
  // every control point is a checkpoint's, and over hosts meetsAt said.
  bool moveHere = liveMoveRank_ >= 0 && reached == liveMoveAt_;
  if (!moveHere && policy_.intervalSeconds > 0 &&
      (hostParts_ ? !partsMeet : !meetsHere(localIndex, reached)))
    return false;
  // The same for every rank of the round: they all count the same control
  // points.
  roundControlPoint_ = reached;
  if (!canSuspend && everyoneCan_) {
    everyoneCan_ = false;
    firstRefusal_ = "rank " + std::to_string(worldRank) + ": " + why;
  }
  if (!rankCanMoveLive && everyoneCanMove_) {
    everyoneCanMove_ = false;
    firstMoveRefusal_ = "rank " + std::to_string(worldRank) + ": " + why;
  }
  bool alive = meet(worldRank, lock, [&] {
    ++statistics_.meetings;
    bool moves = liveMoveRank_ >= 0 && roundControlPoint_ == liveMoveAt_;
    if (moves) {
      // A live move carries what a checkpoint does, the rank's pending
      // receives and completed requests, and its unfinished output lines
      // (liveMoveSuspended); every other rank's stay where they are.
      bool can = everyoneCanMove_;
      std::string refusal = firstMoveRefusal_;
      if (can && !rankUnmovable_[localIndexOf(liveMoveRank_)].empty()) {
        can = false;
        refusal = rankUnmovable_[localIndexOf(liveMoveRank_)];
      }
      if (can && quiescenceCheck_)
        if (std::string inFlight = quiescenceCheck_(); !inFlight.empty()) {
          can = false;
          refusal = std::move(inFlight);
        }
      firstRefusal_ = std::move(refusal);
      if (hostParts_) {
        // A move between parts: part 0 holds every part at this control
        // point and decides (CheckpointAgreement.h's live round); this
        // part votes as at any other.
        bool aborted = false;
        uint64_t sequence = 0;
        decision_ = hostParts_->agree(worldRank, roundControlPoint_, false, can && everyoneCan_,
                                      can, firstRefusal_, sequence, aborted);
        if (!decision_ && firstRefusal_.empty())
          firstRefusal_ = aborted ? "the job is ending" : "part 0 did not take it";
      } else {
        decision_ = can;
      }
      if (decision_) {
        moveRound_ = true;
      } else {
        // Tried again at the next control point (part 0 does the same).
        ++liveMoveAt_;
        std::fprintf(stderr, "synergy-run: note: live move of rank %d postponed (%s)\n",
                     liveMoveRank_.load(), firstRefusal_.c_str());
      }
      everyoneCan_ = true;
      everyoneCanMove_ = true;
      firstMoveRefusal_.clear();
      meetingAt_ = 0;
      meetingNamed_ = false;
      roundStart_ = std::chrono::steady_clock::now();
      return;
    }
    bool isDue = due();
    // The last commit (part 0's, in a job spread over hosts) may still be
    // under way when the interval is shorter than a write. Then the next
    // checkpoint waits for it, not the ranks: it falls due at the first
    // control point after the write is done. At --checkpoint-every 0, a
    // checkpoint at every control point, the ranks wait for the write.
    bool commits = !hostParts_ || hostParts_->partIndex() == 0;
    if (isDue && commits && policy_.intervalSeconds > 0 && !backgroundWrites_.idle())
      isDue = false;
    if (isDue && commits) backgroundWrites_.finish();
    // Only part 0 knows whether the job's checkpoint is due, or whether this
    // control point is a live move's, which neither a pending receive (the
    // moving rank carries its own) nor an unfinished line holds back: every
    // other part reports on its mailboxes at every control point.
    bool canMoveLive = everyoneCanMove_;
    if ((isDue || hostParts_) && (everyoneCan_ || canMoveLive) && quiescenceCheck_) {
      if (std::string inFlight = quiescenceCheck_(); !inFlight.empty()) {
        if (everyoneCan_) firstRefusal_ = inFlight;
        everyoneCan_ = false;
        canMoveLive = false;
      }
    }
    if ((isDue || hostParts_) && everyoneCan_ && unfinishedLineCheck_) {
      if (std::string line = unfinishedLineCheck_(); !line.empty()) {
        everyoneCan_ = false;
        firstRefusal_ = std::move(line);
      }
    }
    sequence_ = firstSequence_ + checkpointsQueued_ + 1;
    if (hostParts_) {
      bool aborted = false;
      decision_ =
          hostParts_->agree(worldRank, roundControlPoint_, isDue, everyoneCan_, canMoveLive,
                            firstRefusal_, sequence_, aborted);
      if (!aborted) takeInArrival();
      // Part 0's reason, noted once, by part 0.
      isDue = isDue && hostParts_->partIndex() == 0 && !aborted;
      everyoneCan_ = decision_;
    } else {
      decision_ = isDue && everyoneCan_;
    }
    if (isDue && !everyoneCan_) {
      ++statistics_.postponed;
      std::fprintf(stderr, "synergy-run: note: checkpoint skipped at this control point (%s)\n",
                   firstRefusal_.c_str());
    }
    everyoneCan_ = true;
    everyoneCanMove_ = true;
    firstMoveRefusal_.clear();
    meetingAt_ = 0;
    meetingNamed_ = false;
    roundUnresumable_.clear();
    if (decision_)
      for (const std::string& noted : rankUnresumable_)
        if (!noted.empty()) {
          roundUnresumable_ = noted;
          break;
        }
    roundStart_ = std::chrono::steady_clock::now();
  });
  // An aborted job goes on unsuspended to its next MPI call, which ends it.
  return alive && decision_;
}

bool CheckpointCoordinator::liveMoveSuspended(int worldRank, granule::Granule& granule,
                                              std::string& error) {
  if (worldRank == liveMoveRank_) {
    auto start = std::chrono::steady_clock::now();
    uint64_t cpuBefore = threadCpuNanoseconds();
    std::string notRecorded;
    DepartingBytes bytes =
        encodeDepartingRank(uint32_t(worldRank), granule, job_.grants.size(), notRecorded);
    if (notRecorded.empty()) {
      // The bytes lie in a mapping of this process's own (RankMove.h).
      if (corruptMoveForTest_) const_cast<char&>(bytes.bytes().back()) ^= 1;
      granule.depart();
      if (printMoveCosts_) {
        auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr,
                     "synergy-run: live move: rank %d left: %.3f ms, cpu %.3f ms, %llu bytes "
                     "of %llu memory\n",
                     worldRank, std::chrono::duration<double, std::milli>(now - start).count(),
                     double(threadCpuNanoseconds() - cpuBefore) * 1e-6,
                     (unsigned long long)bytes.bytes().size(),
                     (unsigned long long)granule.memorySize());
      }
    } else {
      std::fprintf(stderr, "synergy-run: note: live move of rank %d not taken (%s)\n", worldRank,
                   notRecorded.c_str());
      bytes.clear();
    }
    double leftMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    {
      std::lock_guard<std::mutex> guard(mutex_);
      departure_ = std::move(bytes);
      departedAt_ = std::chrono::steady_clock::now();
    }
    // Between parts: the rank's unfinished output lines go to the target
    // ahead of its bytes, once its whole lines have left this launcher;
    // they stay pending here until the rank leaves.
    if (hostParts_ && !departure_.empty() && outputHandOver_.hold)
      hostParts_->sendOutputTails(worldRank, outputHandOver_.hold(worldRank));
    // Shipped from departure_, which no one touches until arrive() has
    // heard part 0's word (awaitDeparture).
    if (hostParts_) hostParts_->departed(worldRank, departure_.bytes(), leftMs, notRecorded);
  } else {
    std::lock_guard<std::mutex> guard(mutex_);
    addLiveCommunicators(granule.extension<mpi::RankState>(), liveCommunicators_);
  }
  std::unique_lock<std::mutex> lock(mutex_);
  bool alive = meet(worldRank, lock, [&] {
    moveRound_ = false;
    // A move not taken (its rank rewinds in place) holds no one.
    if (!departure_.empty()) {
      arrival_ = kArrivalAwaited;
      heldSince_ = std::chrono::steady_clock::now();
    }
  });
  if (!alive) {
    error = "the job was aborted during a live move";
    return false;
  }
  if (worldRank == liveMoveRank_) return true;
  if (arrival_.load() == kArrivalAwaited) {
    // Held at the control point until the departed rank has arrived; the
    // check and this entry are under the lock arrive() takes to release
    // them, so no release is missed.
    heldForArrival_.push_back(worldRank);
    lock.unlock();
    alive = rankWaiting_.wait(worldRank, [this] { return arrival_.load() != kArrivalAwaited; });
    lock.lock();
  }
  if (!alive) {
    error = "the job was aborted during a live move: rank " + std::to_string(liveMoveRank_.load()) +
            " did not arrive";
    return false;
  }
  return true;
}

void CheckpointCoordinator::setRankAdoption(RankAdoption adopt) {
  std::lock_guard<std::mutex> guard(mutex_);
  adopt_ = std::move(adopt);
}

bool CheckpointCoordinator::rankLeft(int worldRank) {
  std::lock_guard<std::mutex> guard(mutex_);
  return std::find(leftRanks_.begin(), leftRanks_.end(), worldRank) != leftRanks_.end();
}

void CheckpointCoordinator::setHostParts(HostParts* parts) {
  hostParts_ = parts;
  // A rank a live move brings here counts in its own slot: every rank of
  // the job has one, so that the array is never replaced while a rank
  // counts without the lock.
  size_t jobRanks = parts ? parts->partOfRanks().size() : 0;
  if (jobRanks <= controlPointSlots_) return;
  auto counts = std::make_unique<ControlPointCount[]>(jobRanks);
  for (size_t i = 0; i < controlPointSlots_; ++i) counts[i] = controlPointsReached_[i].load();
  controlPointsReached_ = std::move(counts);
  controlPointSlots_ = jobRanks;
}

bool CheckpointCoordinator::addRank(int worldRank, std::string& error) {
  int jobRanks = hostParts_ ? int(hostParts_->partOfRanks().size()) : worldRanks_.back() + 1;
  if (worldRank < 0 || worldRank >= jobRanks) {
    error = "rank " + std::to_string(worldRank) + " is not one of the job's " +
            std::to_string(jobRanks);
    return false;
  }
  size_t at = localIndexOf(worldRank);
  if (at < worldRanks_.size() && worldRanks_[at] == worldRank) {
    error = "rank " + std::to_string(worldRank) + " already runs on this part";
    return false;
  }
  worldRanks_.insert(worldRanks_.begin() + ptrdiff_t(at), worldRank);
  rankUnresumable_.insert(rankUnresumable_.begin() + ptrdiff_t(at), std::string());
  rankUnmovable_.insert(rankUnmovable_.begin() + ptrdiff_t(at), std::string());
  // The new rank counts from where the part's ranks stand (all at this
  // control point); its slot was the job's from the start (setHostParts).
  uint64_t standing = 0;
  for (int other : worldRanks_)
    if (other != worldRank) standing = std::max(standing, controlPointsReached_[size_t(other)].load());
  controlPointsReached_[size_t(worldRank)] = standing;
  {
    std::lock_guard<std::mutex> guard(spareMutex_);
    if (spareSections_.size() + 1 == worldRanks_.size())
      spareSections_.insert(spareSections_.begin() + ptrdiff_t(at), std::string());
    else
      spareSections_.assign(worldRanks_.size(), std::string());
  }
  if (sections_.size() + 1 == worldRanks_.size())
    sections_.insert(sections_.begin() + ptrdiff_t(at), std::string());
  else
    sections_.assign(worldRanks_.size(), std::string());
  ++ranks_;
  return true;
}

bool CheckpointCoordinator::dropRank(int worldRank, std::string& error) {
  size_t at = localIndexOf(worldRank);
  if (at >= worldRanks_.size() || worldRanks_[at] != worldRank) {
    error = "rank " + std::to_string(worldRank) + " does not run on this part";
    return false;
  }
  worldRanks_.erase(worldRanks_.begin() + ptrdiff_t(at));
  rankUnresumable_.erase(rankUnresumable_.begin() + ptrdiff_t(at));
  rankUnmovable_.erase(rankUnmovable_.begin() + ptrdiff_t(at));
  {
    std::lock_guard<std::mutex> guard(spareMutex_);
    if (at < spareSections_.size())
      spareSections_.erase(spareSections_.begin() + ptrdiff_t(at));
  }
  if (at < sections_.size()) sections_.erase(sections_.begin() + ptrdiff_t(at));
  --ranks_;
  return true;
}

void CheckpointCoordinator::takeInArrival() {
  int rank = -1;
  DepartingBytes bytes;
  if (!hostParts_ || !hostParts_->takeArrivingRank(rank, bytes)) return;
  std::string error;
  if (!departure_.empty() || adoptedRank_ >= 0) {
    error = "another rank's arrival is under way";
  } else if (!adopt_) {
    error = "the launcher takes no rank in";
  } else if (addRank(rank, error)) {
    // The rank's streams here start with the lines it left unfinished.
    std::array<std::string, 2> tails;
    if (hostParts_->takeOutputTails(rank, tails) && outputHandOver_.seed)
      outputHandOver_.seed(rank, tails);
    departure_ = std::move(bytes);
    departedAt_ = std::chrono::steady_clock::now();
    adoptedRank_ = rank;
    if (adopt_(rank, error)) return;
    departure_.clear();
    adoptedRank_ = -1;
    std::string ignored;
    dropRank(rank, ignored);
  }
  // The routes put the rank here already: the job cannot go on without it
  // (the launcher's adoption aborts the job on its own failures; the
  // deadlock check reports a rank that is nowhere).
  std::fprintf(stderr, "synergy-run: error: rank %d cannot be taken in by this part: %s\n", rank,
               error.c_str());
}

void CheckpointCoordinator::releaseHeldRanks() {
  arrival_ = kArrived;
  for (int rank : heldForArrival_) rankWaiting_.wake(rank);
  heldForArrival_.clear();
}

bool CheckpointCoordinator::arrive(int worldRank, granule::Granule& granule, std::string& error) {
  auto start = std::chrono::steady_clock::now();
  uint64_t cpuBefore = threadCpuNanoseconds();
  if (hostParts_) {
    // Part 0 decides where the rank goes on; until it has, and the
    // transport has given the lent bytes back, they are left alone.
    bool leaves = false;
    bool takenIn = false;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      takenIn = worldRank == adoptedRank_;
    }
    if (!takenIn && !hostParts_->awaitDeparture(worldRank, leaves, error)) return false;
    if (leaves) {
      // It runs on the target part now: this part's other ranks go on
      // without it.
      std::lock_guard<std::mutex> guard(mutex_);
      if (!dropRank(worldRank, error)) return false;
      departure_.clear();
      liveCommunicators_.clear();
      liveMoveRank_ = -1;
      leftRanks_.push_back(worldRank);
      releaseHeldRanks();
      error = "rank " + std::to_string(worldRank) + " left this part";
      return false;
    }
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if ((worldRank != liveMoveRank_ && worldRank != adoptedRank_) || departure_.empty()) {
    error = "no state of rank " + std::to_string(worldRank) + " departed";
    return false;
  }
  DepartingBytes bytes = std::exchange(departure_, {});
  ResumedCommunicators communicators = std::exchange(liveCommunicators_, {});
  auto departedAt = departedAt_;
  const bool takenIn = worldRank == adoptedRank_;
  if (takenIn) adoptedRank_ = -1;
  lock.unlock();
  // The job's ranks: over hosts, more than this part's.
  uint32_t jobRanks = hostParts_ ? uint32_t(hostParts_->partOfRanks().size())
                                 : uint32_t(worldRanks_.back() + 1);
  // A section that landed here was checksummed as it landed; the source's
  // own bytes (a move not taken) are checked in full.
  std::optional<RankImage> image =
      decodeDepartingRank(bytes.bytes(), uint32_t(worldRank), jobRanks,
                          uint32_t(job_.grants.size()), error, bytes.landedCrc);
  // A failed arrival leaves the held ranks waiting: the launcher's abort,
  // which names this rank and the reason, ends their waits, and no held
  // rank's own error can come first.
  if (!image || !restoreRank(*image, granule, communicators, error, bytes.pagesMayMove))
    return false;
  // The image's memory runs were views of these bytes.
  image.reset();
  bytes.clear();
  auto now = std::chrono::steady_clock::now();
  if (printMoveCosts_)
    std::fprintf(stderr,
                 "synergy-run: live move: rank %d arrived: %.3f ms, cpu %.3f ms (%.3f ms after "
                 "it left)\n",
                 worldRank, std::chrono::duration<double, std::milli>(now - start).count(),
                 double(threadCpuNanoseconds() - cpuBefore) * 1e-6,
                 std::chrono::duration<double, std::milli>(now - departedAt).count());
  // Where the rank runs now, which a user (and the live-move case) sees.
  if (takenIn)
    std::fprintf(stderr,
                 "synergy-run: note: rank %d arrived on part %u after a live move (restored %.1f ms after "
                 "this part took it in)\n",
                 worldRank, hostParts_->partIndex(),
                 std::chrono::duration<double, std::milli>(now - departedAt).count());
  lock.lock();
  // Printed before the release: no held rank goes on before this line (a
  // part that took the rank in held none for it).
  if (printMoveCosts_ && !takenIn)
    std::fprintf(stderr,
                 "synergy-run: live move: %zu other ranks held %.3f ms at the control point, "
                 "until rank %d arrived\n",
                 size_t(ranks_ - 1),
                 std::chrono::duration<double, std::milli>(now - heldSince_).count(), worldRank);
  releaseHeldRanks();
  return true;
}

bool CheckpointCoordinator::suspended(int worldRank, granule::Granule& granule,
                                      const snapshot::Snapshot* snapshot, std::string& error) {
  if (moveRound_.load()) return liveMoveSuspended(worldRank, granule, error);
  using Clock = std::chrono::steady_clock;
  Clock::time_point unwound = Clock::now();
  uint64_t cpuBefore = threadCpuNanoseconds();
  std::string section;
  std::string filesNotRecorded;
  bool inPlace = resumesInPlace(worldRank);
  const size_t localIndex = localIndexOf(worldRank);
  if ((snapshot || inPlace) && !policy_.directory.empty()) {
    std::vector<OpenFile> files;
    filesNotRecorded = captureOpenFiles(granule, job_.grants.size(), files);
    const snapshot::LinearMemory* memory = granule.linearMemory();
    MpiObjects mpi = captureMpiObjects(granule.extension<mpi::RankState>());
    if (inPlace && !snapshot) {
      section = encodeInPlace(worldRank, granule, takeSpareSection(localIndex), files, mpi);
    } else {
      section = encodeRankSection(uint32_t(worldRank), granule.unwindBufferAddress(),
                                  snapshot ? snapshot->globals() : granule.globalBytes(),
                                  granule.memoryBase(), granule.memorySize(), files, mpi,
                                  memory && memory->isAnonymous(), takeSpareSection(localIndex));
    }
  }
  Clock::time_point copied = Clock::now();
  uint64_t copyCpu = threadCpuNanoseconds() - cpuBefore;
  std::unique_lock<std::mutex> lock(mutex_);
  statistics_.unwindSeconds += std::chrono::duration<double>(unwound - roundStart_).count();
  statistics_.copySeconds += std::chrono::duration<double>(copied - unwound).count();
  statistics_.copyCpuSeconds += double(copyCpu) * 1e-9;
  if (!filesNotRecorded.empty() && roundUnresumable_.empty())
    roundUnresumable_ = "rank " + std::to_string(worldRank) + ": " + filesNotRecorded +
                        " (such descriptors are not checkpointed)";
  if (!snapshot && !inPlace && failure_.empty())
    failure_ = "rank " + std::to_string(worldRank) + ": " + error;
  sections_[localIndex] = std::move(section);
  bool alive = meet(worldRank, lock, [&] {
    // A file that cannot be written costs this checkpoint, not the run:
    // every rank goes on from where it stands.
    if (!failure_.empty()) {
    } else if (!policy_.directory.empty()) {
      queueCheckpoint();
      // The kill hook stands for a crash right after a checkpoint: on one
      // host the ranks wait for each write then, so that none of them has
      // gone on past the checkpoint when the process dies.
      if (killAfter_ && !hostParts_) backgroundWrites_.finish();
    } else {
      ++statistics_.checkpoints;
    }
    // Without mutex_ the background write never waits for us: finishing
    // it here, under the lock, cannot deadlock.
    if (hostParts_)
      hostParts_->checkpointOver(sequence_, [this, sequence = sequence_] {
        if (!failure_.empty() || policy_.directory.empty()) return false;
        backgroundWrites_.finish();
        return writtenSequence_.load() == sequence;
      });
    roundUnresumable_.clear();
    for (std::string& done : sections_) std::string().swap(done);
    roundChunks_.clear();
    auto now = std::chrono::steady_clock::now();
    statistics_.seconds += std::chrono::duration<double>(now - roundStart_).count();
    lastCheckpointNs_ =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  });
  // A rank without a snapshot cannot be rewound, and the job cannot go on
  // without it: every rank stops, and the first failure names the cause.
  if (!failure_.empty()) {
    error = failure_;
    return false;
  }
  if (!alive) {
    error = "the job was aborted during a checkpoint";
    return false;
  }
  return true;
}

// Every rank is stopped: once what they wrote has reached the launcher's
// stdout and stderr, their offsets are where a resumed job continues.
JobRecord CheckpointCoordinator::recordOfThisRound() {
  if (drainOutput_) drainOutput_();
  JobRecord job = job_;
  job.stdoutOffset = regularFileOffset(STDOUT_FILENO);
  job.stderrOffset = regularFileOffset(STDERR_FILENO);
  if (!roundUnresumable_.empty()) job.unresumable = roundUnresumable_;
  return job;
}

void CheckpointCoordinator::queueCheckpoint() {
  JobRecord job = recordOfThisRound();
  PartOutput output;
  if (hostParts_)
    output = {hostParts_->jobId(), hostParts_->partIndex(), outputCount_ ? outputCount_() : 0};
  std::vector<std::string> sections = std::move(sections_);
  sections_.assign(size_t(ranks_), std::string());
  ChunksByRank chunks = std::move(roundChunks_);
  roundChunks_.clear();
  ++checkpointsQueued_;
  // This round's ranks and table: a live move between parts may change
  // them before the write is done.
  std::vector<uint32_t> partOfRanks;
  if (hostParts_) partOfRanks = hostParts_->partOfRanks();
  backgroundWrites_.queue([this, job = std::move(job), sections = std::move(sections),
                           sequence = sequence_, output, ranks = worldRanks_,
                           partOfRanks = std::move(partOfRanks),
                           chunks = std::move(chunks)]() mutable {
    // Without mutex_: a rank may hold it while it waits for this write.
    std::string error;
    auto started = std::chrono::steady_clock::now();
    uint64_t cpuBefore = threadCpuNanoseconds();
    bool written = hostParts_ ? writePartCheckpoint(job, sections, ranks, partOfRanks, sequence,
                                                    output, chunks, error)
                              : writeCheckpoint(job, sections, ranks, chunks, sequence, error);
    backgroundNanoseconds_ += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now() - started)
                                           .count());
    backgroundCpuNanoseconds_ += threadCpuNanoseconds() - cpuBefore;
    keepSpareSections(std::move(sections));
    {
      // Each rank's chunks go back with its section; a rank whose section
      // came without (built another way) has none to keep.
      std::lock_guard<std::mutex> guard(spareMutex_);
      for (int rank : ranks) {
        auto given = chunks.find(rank);
        if (given != chunks.end() && given->second) spareChunks_[rank] = std::move(given->second);
        else spareChunks_.erase(rank);
      }
    }
    if (!written) {
      ++backgroundUnwritten_;
      std::fprintf(stderr, "synergy-run: note: checkpoint not written (%s)\n", error.c_str());
      return;
    }
    writtenSequence_ = sequence;
    uint64_t count = ++backgroundWritten_;
    if ((!hostParts_ || hostParts_->partIndex() == 0) && killAfter_ && count == killAfter_ &&
        !tearNext_)
      raise(SIGKILL);
  });
}

// On the background writes' thread, with no lock held: a job on one host.
bool CheckpointCoordinator::writeCheckpoint(const JobRecord& job,
                                            const std::vector<std::string>& sections,
                                            const std::vector<int>& worldRanks,
                                            ChunksByRank& chunks, uint64_t sequence,
                                            std::string& error) {
  return commitCheckpointFile(job, sequence, piecesOf(sections), nullptr, error, worldRanks,
                              &chunks);
}

bool CheckpointCoordinator::replaceIncrementally(const std::string& name, uint64_t headBytes,
                                                 const HeadWriter& head,
                                                 std::vector<ReplacePiece> pieces,
                                                 const std::vector<int>& pieceRanks,
                                                 ChunksByRank& chunks, ReplaceCounts& counts,
                                                 std::string& error) {
  // The spare is the file placed two writes ago when the write between
  // exchanged it with the one in place.
  const PlacedFile* twoAgo =
      placedFiles_.size() == 2 && placedFiles_[1].exchanged ? &placedFiles_[0] : nullptr;
  PlacedFile placed;
  uint64_t at = headBytes;
  for (size_t i = 0; i < pieces.size(); ++i) {
    int rank = i < pieceRanks.size() ? pieceRanks[i] : -1;
    if (rank >= 0 && pieces[i].fd < 0) {
      placed.sectionAt[rank] = at;
      auto known = chunks.find(rank);
      if (known != chunks.end() && known->second) {
        SectionChunks& section = *known->second;
        // Hints for another buffer than the one written are not followed.
        if (section.section == pieces[i].bytes.data() &&
            section.sectionBytes == pieces[i].bytes.size()) {
          pieces[i].chunks = &section.chunks;
          auto before = twoAgo ? twoAgo->sectionAt.find(rank) : placed.sectionAt.end();
          if (!twoAgo || before == twoAgo->sectionAt.end() || before->second != at)
            section.chunks.onSpare.clear();
        }
      }
    }
    at += pieces[i].size();
  }
  if (!replaceFileDurably(policy_.directory, name, headBytes, head, pieces, true, counts, error,
                          twoAgo ? &twoAgo->identity : nullptr)) {
    placedFiles_.clear();
    return false;
  }
  placed.identity = counts.placed;
  placed.exchanged = counts.exchanged;
  placedFiles_.push_back(std::move(placed));
  if (placedFiles_.size() > 2) placedFiles_.erase(placedFiles_.begin());
  backgroundSkippedBytes_ += counts.skippedBytes;
  return true;
}

// On the background writes' thread, with no lock held: `sections` are this
// part's ranks' of checkpoint `sequence`.
bool CheckpointCoordinator::writePartCheckpoint(const JobRecord& job,
                                                const std::vector<std::string>& sections,
                                                const std::vector<int>& worldRanks,
                                                const std::vector<uint32_t>& partOfRanks,
                                                uint64_t sequence, const PartOutput& output,
                                                ChunksByRank& chunks, std::string& error) {
  uint32_t self = hostParts_->partIndex();
  std::vector<std::vector<uint32_t>> ranksOfPart;
  for (uint32_t rank = 0; rank < partOfRanks.size(); ++rank) {
    if (partOfRanks[rank] >= ranksOfPart.size()) ranksOfPart.resize(partOfRanks[rank] + 1);
    ranksOfPart[partOfRanks[rank]].push_back(rank);
  }
  if (self != 0) {
    PartSections part{sequence, self, ranksOfPart[self], job.unresumable, {}};
    std::vector<ReplacePiece> pieces = piecesOf(sections);
    std::vector<uint64_t> sectionBytes;
    for (const std::string& section : sections) sectionBytes.push_back(section.size());
    std::string headBytes;
    HeadWriter head = [&](const std::vector<uint32_t>& checksums, std::string& bytes,
                          std::string&) {
      bytes = encodePartFileHead(
          part, sectionBytes, checksumOfPieces(checksums, sectionBytes, allIndices(pieces.size())));
      headBytes = bytes;
      return true;
    };
    // A part's own file is not the checkpoint: its bytes are not counted.
    ReplaceCounts partCounts;
    bool written = replaceIncrementally(partFileName(self),
                                        encodePartFileHead(part, sectionBytes, 0).size(), head,
                                        pieces, worldRanks, chunks, partCounts, error);
    if (written && policy_.hostLocalDirectory) {
      std::vector<std::string_view> file{headBytes};
      file.insert(file.end(), sections.begin(), sections.end());
      hostParts_->sendPartFile(sequence, file);
    }
    hostParts_->partWritten(sequence, written, output);
    return written;
  }
  std::vector<PartOutput> outputs{output};
  if (!hostParts_->gatherWritten(sequence, outputs, error)) return false;
  JobRecord record = job;
  record.partOutputs = std::move(outputs);
  // Every rank's section in its place in world rank order: part 0's own,
  // then each other part's as a range of its part file, whose head alone is
  // read here; the sections are read as they are copied.
  std::vector<ReplacePiece> pieces(partOfRanks.size());
  std::vector<int> pieceRanks(partOfRanks.size(), -1);
  for (size_t i = 0; i < sections.size() && i < worldRanks.size(); ++i) {
    pieces[size_t(worldRanks[i])] = {sections[i]};
    pieceRanks[size_t(worldRanks[i])] = worldRanks[i];
  }
  OpenFiles partFiles;
  std::vector<PartFileHead> heads(ranksOfPart.size());
  // The part files sent whole over the transport, checked already; their
  // sections are views of these.
  std::vector<std::optional<std::string>> sent(ranksOfPart.size());
  for (uint32_t p = 1; p < ranksOfPart.size(); ++p) {
    if (ranksOfPart[p].empty()) continue;  // emptied by a live move: it writes nothing
    if ((sent[p] = hostParts_->receivedPartFile(p, sequence))) {
      PartSections expected{sequence, p, ranksOfPart[p], {}, {}};
      std::optional<PartSections> part = decodePartFile(*sent[p], expected, error);
      if (!part) {
        error = "part " + std::to_string(p) + "'s file as sent: " + error;
        return false;
      }
      if (record.unresumable.empty() && !part->unresumable.empty())
        record.unresumable = part->unresumable;
      for (size_t i = 0; i < part->sections.size(); ++i)
        pieces[ranksOfPart[p][i]] = ReplacePiece{part->sections[i]};
      continue;
    }
    std::string path = policy_.directory + "/" + partFileName(p);
    int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      error = path + ": " + std::strerror(errno);
      return false;
    }
    partFiles.fds.push_back(fd);
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
      error = path + ": not a regular file";
      return false;
    }
    uint64_t fileBytes = uint64_t(info.st_size);
    PartSections expected{sequence, p, ranksOfPart[p], {}, {}};
    std::optional<PartFileHead> head;
    if (!readPrefix(fd, size_t(std::min(fileBytes, maxPartFileHeadBytes(ranksOfPart[p].size()))),
                    partHeadBuffer_))
      error = std::strerror(errno);
    else
      head = decodePartFileHead(partHeadBuffer_, fileBytes, expected, error);
    if (!head) {
      error = path + ": " + error;
      return false;
    }
    if (record.unresumable.empty() && !head->part.unresumable.empty())
      record.unresumable = head->part.unresumable;
    uint64_t offset = head->headBytes;
    for (size_t i = 0; i < head->sectionBytes.size(); ++i) {
      pieces[ranksOfPart[p][i]] = ReplacePiece{{}, fd, offset, head->sectionBytes[i]};
      offset += head->sectionBytes[i];
    }
    heads[p] = std::move(*head);
  }
  // A part file whose sections are not the ones its checksum covers
  // (corrupt, or rewritten meanwhile) fails the checkpoint before its head
  // is written, which leaves the last one in place.
  auto checkParts = [&](const std::vector<uint32_t>& checksums, const std::vector<uint64_t>& sizes,
                        std::string& why) {
    for (uint32_t p = 1; p < ranksOfPart.size(); ++p)
      if (!sent[p] && !heads[p].sectionsMatch(checksumOfPieces(checksums, sizes, ranksOfPart[p]))) {
        why = policy_.directory + "/" + partFileName(p) +
              ": the part file's checksum does not match (corrupt)";
        return false;
      }
    return true;
  };
  if (!commitCheckpointFile(record, sequence, pieces, checkParts, error, pieceRanks, &chunks))
    return false;
  if (!policy_.hostLocalDirectory) return true;
  // This host's directory is no other's: the checkpoint counts once a
  // second host holds it too.
  constexpr size_t kMaxCopiedCheckpointBytes = size_t(1) << 40;
  std::optional<std::string> file = util::readRegularFile(
      policy_.directory + "/" + kCheckpointFileName, kMaxCopiedCheckpointBytes, error);
  if (!file) return false;
  if (!hostParts_->copyCommitted(sequence, *file, record.partOutputs, error)) {
    error = "checkpoint " + std::to_string(sequence) + " has no copy on a second host: " + error;
    return false;
  }
  return true;
}

bool CheckpointCoordinator::commitCheckpointFile(const JobRecord& job, uint64_t sequence,
                                                 const std::vector<ReplacePiece>& sections,
                                                 const SectionsCheck& checkSections,
                                                 std::string& error,
                                                 const std::vector<int>& pieceRanks,
                                                 ChunksByRank* chunks) {
  std::vector<uint64_t> sectionBytes;
  for (const ReplacePiece& section : sections) sectionBytes.push_back(section.size());
  HeadWriter head = [&](const std::vector<uint32_t>& checksums, std::string& bytes,
                        std::string& why) {
    if (tearNext_ && backgroundWritten_.load() == killAfter_) {
      std::fprintf(stderr, "synergy-run: test: checkpoint %llu's write torn before its head\n",
                   (unsigned long long)sequence);
      raise(SIGKILL);
    }
    if (checkSections && !checkSections(checksums, sectionBytes, why)) return false;
    bytes = encodeCheckpointHead(
        sequence, programDigest_, sectionBytes,
        checksumOfPieces(checksums, sectionBytes, allIndices(sections.size())), job);
    return true;
  };
  uint64_t headBytes = encodeCheckpointHead(sequence, programDigest_, sectionBytes, 0, job).size();
  ReplaceCounts counts;
  ChunksByRank none;
  if (!replaceIncrementally(kCheckpointFileName, headBytes, head, sections, pieceRanks,
                            chunks ? *chunks : none, counts, error))
    return false;
  backgroundBytes_ += counts.fileBytes;
  backgroundChangedBytes_ += counts.changedBytes;
  return true;
}

std::string CheckpointCoordinator::encodeInPlace(int worldRank, granule::Granule& granule,
                                                 std::string spare,
                                                 const std::vector<OpenFile>& files,
                                                 const MpiObjects& mpi) {
  WrittenSince* since;
  {
    std::lock_guard<std::mutex> guard(spareMutex_);
    since = &writtenSince_[worldRank];
  }
  const snapshot::LinearMemory* memory = granule.linearMemory();
  const bool anonymous = memory && memory->isAnonymous();
  uint8_t* base = granule.memoryBase();
  const uint64_t bytes = granule.memorySize();
  const std::vector<uint8_t> globals = granule.globalBytes();
  // The pages written since the last section are taken, and protected
  // again, before anything is read: a write after this is in the next list.
  bool patched = false;
  uint64_t copied = 0;
  const size_t spareBytes = spare.size();
  const char* spareData = spare.data();
  std::vector<std::pair<uint64_t, uint64_t>> changed;
  std::shared_ptr<SectionChunks> chunks;
  {
    std::lock_guard<std::mutex> guard(spareMutex_);
    if (auto kept = spareChunks_.find(worldRank); kept != spareChunks_.end()) {
      chunks = std::move(kept->second);
      spareChunks_.erase(kept);
    }
  }
  if (!chunks) chunks = std::make_shared<SectionChunks>();
  if (since->pages && (!anonymous || since->pages->base() != base || since->pages->bytes() != bytes))
    since->pages.reset();
  const bool rested = !since->pages && anonymous && since->rest.resting();
  std::optional<uint64_t> writtenPages;
  if (since->pages) {
    std::vector<uint64_t> written;
    std::string error;
    if (!since->pages->take(bytes, written, error)) {
      since->pages.reset();
    } else {
      writtenPages = written.size();
      if (spare.size() == since->sectionBytes && spare.data() == since->section &&
          spare.size() > 0)
        patched = patchRankSection(spare, uint32_t(worldRank), granule.unwindBufferAddress(),
                                   globals, base, bytes, written, files, mpi, copied, &changed);
    }
  }
  std::string section =
      patched ? std::move(spare)
              : encodeRankSection(uint32_t(worldRank), granule.unwindBufferAddress(), globals,
                                  base, bytes, files, mpi, anonymous, std::move(spare));
  // Most of the memory the section holds written since the last: the
  // tracking's faults cost more than they save (WriteTrackingRest.h), so the
  // next sections are built whole from memory that is not protected. The
  // rank stands still, so a tracker made after its section is copied misses
  // no write.
  if (writtenPages &&
      since->rest.tracked(*writtenPages, (section.size() + snapshot::kHostPageSize - 1) /
                                             snapshot::kHostPageSize))
    since->pages.reset();
  if (!since->pages && anonymous && bytes > 0 && since->rest.mayTrack()) {
    std::string error;
    since->pages = snapshot::WrittenPages::create(base, bytes, error);
  }
  since->section = since->pages ? section.data() : nullptr;
  since->sectionBytes = since->pages ? section.size() : 0;
  // What the write may take as known: after a patch of the very buffer the
  // chunks describe, every chunk the patch did not touch.
  const size_t chunkCount =
      size_t((section.size() + kChecksumChunkBytes - 1) / kChecksumChunkBytes);
  if (patched && chunks->section == spareData && chunks->sectionBytes == spareBytes) {
    std::vector<uint8_t> now(chunkCount, 0);
    for (const auto& [at, length] : changed)
      for (uint64_t chunk = at / kChecksumChunkBytes;
           length > 0 && chunk <= (at + length - 1) / kChecksumChunkBytes && chunk < chunkCount;
           ++chunk)
        now[size_t(chunk)] = 1;
    PieceChunks& known = chunks->chunks;
    known.known.resize(chunkCount, 0);
    known.checksums.resize(chunkCount, 0);
    known.onSpare.assign(chunkCount, 0);
    const bool before = chunks->changedBefore.size() == chunkCount;
    for (size_t chunk = 0; chunk < chunkCount; ++chunk) {
      if (now[chunk]) known.known[chunk] = 0;
      known.onSpare[chunk] = before && !now[chunk] && !chunks->changedBefore[chunk];
    }
    chunks->changedBefore = std::move(now);
  } else {
    chunks->chunks = PieceChunks();
    chunks->changedBefore.clear();
  }
  chunks->section = section.data();
  chunks->sectionBytes = section.size();
  std::lock_guard<std::mutex> guard(mutex_);
  roundChunks_[worldRank] = std::move(chunks);
  ++statistics_.sections;
  if (rested) ++statistics_.restedSections;
  if (patched) {
    ++statistics_.patchedSections;
    statistics_.patchedBytes += copied;
  }
  return section;
}

std::string CheckpointCoordinator::takeSpareSection(size_t localIndex) {
  std::lock_guard<std::mutex> guard(spareMutex_);
  return std::move(spareSections_[localIndex]);
}

void CheckpointCoordinator::keepSpareSections(std::vector<std::string> sections) {
  std::lock_guard<std::mutex> guard(spareMutex_);
  for (size_t i = 0; i < sections.size() && i < spareSections_.size(); ++i)
    if (sections[i].capacity() > 0) spareSections_[i] = std::move(sections[i]);
}

CheckpointStatistics CheckpointCoordinator::statistics() {
  backgroundWrites_.finish();
  std::lock_guard<std::mutex> guard(mutex_);
  CheckpointStatistics totals = statistics_;
  totals.checkpoints += backgroundWritten_;
  totals.postponed += backgroundUnwritten_;
  totals.bytesWritten += backgroundBytes_;
  totals.writeSeconds = double(backgroundNanoseconds_) * 1e-9;
  totals.writeCpuSeconds = double(backgroundCpuNanoseconds_) * 1e-9;
  totals.changedBytes = backgroundChangedBytes_;
  totals.skippedBytes = backgroundSkippedBytes_;
  for (size_t i = 0; i < controlPointSlots_; ++i)
    totals.controlPoints = std::max(totals.controlPoints, controlPointsReached_[i].load());
  return totals;
}

}  // namespace synergy::checkpoint

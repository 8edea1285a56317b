//===- CheckpointCoordinator.h - consistent checkpoints of an MPI job ------===//
//
// The launcher's BarrierControlPoint for `--checkpoint-every`. At a barrier
// control point (a collective on MPI_COMM_WORLD) every rank reports whether
// it can be unwound; the last to report decides for all: the job suspends
// when a checkpoint is due, every rank can and no message is in flight
// (otherwise the checkpoint is postponed to the next control point, with a
// note naming the rank or the message and the reason). On one host, at an
// interval, the ranks meet only at a control point where a checkpoint has
// fallen due: the first rank to find it due names the next control point
// that no rank has passed yet, and every rank stops there; elsewhere a rank
// only counts the control point and goes on. Meeting at every control point
// was a second barrier after each collective, with its waits' polling and
// wake-ups (bench/mpi/kernels.c stencil at np 4, no checkpoint due: ~4800
// futex calls, against ~150 without the meetings). Each suspended rank encodes
// its own section, a copy of its memory and globals, in parallel with the
// others, and rewinds in the same instance (no snapshot is taken); once
// every section is there, the last one queues the file for writing in the
// background (DurableReplace.h: over the file replaced last time, only
// what changed, fsync, one atomic rename, so a crash leaves the previous
// checkpoint intact) and the ranks go on: the sections are one consistent
// cut of the whole job, whatever the ranks do afterwards.
//
// Without a directory nothing is written: each rank is rewound into a
// fresh instance from its snapshot, which is how that round trip is
// tested.
//
// A job spread over hosts has a coordinator in each host's process, for
// that part's ranks, joined by HostParts: at an interval part 0 names the
// control point where every rank of the job meets once a checkpoint has
// fallen due (HostParts::meetsAt), as the first rank to find it due does on
// one host, and there the part's last rank to arrive asks part 0 for the
// job's decision instead of taking it. Every part
// then writes its own ranks' sections to its part file (PartFile.h) in the
// directory, which is the same shared directory on every host, over the
// one it wrote two checkpoints ago (DurableReplace.h, as the checkpoint
// file: only what changed); part 0 waits until every other part has, reads
// their heads and writes the one checkpoint file from their sections, read
// a chunk at a time as they are compared, and its own (as above); a part
// file whose checksum does not match its sections fails the checkpoint
// before the file's head is written. Part 0 removes the part files and
// their spares when the job's checkpoints are over. One process commits,
// so the checkpoint file is always one generation whole: a part that dies
// before part 0's rename leaves the previous checkpoint in place, and a
// part file is never read but for the checkpoint number its head names.
// The sections cross hosts through the file system the directory is on,
// not the transport (unless the directories are each host's own: then each
// part sends its file to part 0 too, PartFileChunks.h, and part 0 takes the
// sections from the bytes it received), so no host holds more than its own ranks' memory
// twice but part 0, which assembles the file. The part files and the
// commit are written in the background once the ranks' sections are
// encoded (BackgroundWrites.h): the ranks are rewound without waiting for
// the disk, and a checkpoint falls due only once the last one is written
// (part 0's commit), so a disk slower than the interval spaces the
// checkpoints out instead of stopping the ranks; at an interval of 0 (every
// control point) part 0 waits for the last commit before it decides. The
// ranks copy their sections into the buffers of the last checkpoint
// written, whose pages are mapped already.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/BackgroundWrites.h"
#include "checkpoint/CheckpointFile.h"
#include "checkpoint/DurableReplace.h"
#include "checkpoint/HostParts.h"
#include "checkpoint/MpiObjectRecord.h"
#include "checkpoint/RankMove.h"
#include "checkpoint/WriteTrackingRest.h"
#include "snapshot/WrittenPages.h"
#include "mpi/BarrierControlPoint.h"

namespace synergy::checkpoint {

struct CheckpointPolicy {
  double intervalSeconds = 0;  // 0: at every barrier control point
  std::string directory;       // empty: rewind only, write nothing
  // A part of a job spread over hosts whose directory is this host's own
  // (synergyd --checkpoint-root): it sends its part file to part 0 as
  // well (HostParts::sendPartFile).
  bool hostLocalDirectory = false;
};

struct CheckpointStatistics {
  uint64_t checkpoints = 0;  // taken (and written, with a directory)
  uint64_t postponed = 0;    // due but refused by some rank, or not written
  uint64_t bytesWritten = 0;
  double seconds = 0;        // from the decision to the last rank's release
  // Where that time went, summed over the ranks: from the decision to the
  // rank's suspension (its unwind, and its snapshot when it rewinds in a
  // fresh instance), and copying its section.
  double unwindSeconds = 0;
  double copySeconds = 0;
  // The background writes: checksums, writes, fsyncs, renames.
  double writeSeconds = 0;
  // CPU time: of the ranks' copies (summed over the ranks) and of the
  // background writes' thread.
  double copyCpuSeconds = 0;
  double writeCpuSeconds = 0;
  // Of bytesWritten, what differed from the recycled file and was written
  // (DurableReplace.h).
  uint64_t changedBytes = 0;
  // Of bytesWritten, neither compared nor checksummed: what the ranks did
  // not write since the file recycled was written (PieceChunks in
  // DurableReplace.h).
  uint64_t skippedBytes = 0;
  // The barrier control points this part's ranks went through (the most
  // of any rank), and those where they met to agree on a checkpoint (or a
  // move): at an interval, only where one had fallen due.
  uint64_t controlPoints = 0;
  uint64_t meetings = 0;
  // The ranks' sections built, those rebuilt over the rank's last one from
  // the pages it wrote since (the rest were built whole), and the memory
  // bytes those rebuilds copied.
  uint64_t sections = 0;
  uint64_t patchedSections = 0;
  uint64_t patchedBytes = 0;
  // Of the sections built whole, those of ranks whose write tracking
  // rested (WriteTrackingRest.h): they had rewritten most of their memory.
  uint64_t restedSections = 0;
};

class CheckpointCoordinator final : public mpi::BarrierControlPoint {
 public:
  // `ranks` world ranks run in this process: those of `worldRanks`, in
  // increasing order (empty: 0 .. ranks - 1).
  CheckpointCoordinator(int ranks, CheckpointPolicy policy, const Digest& programDigest,
                        std::vector<int> worldRanks = {});
  // Removes the checkpoint file's spare (DurableReplace.h) once every
  // write is done.
  ~CheckpointCoordinator() override;

  bool agreeToSuspend(
      int worldRank,
      util::FunctionRef<bool(std::string& why, bool& canMoveLive)> canSuspend) override;
  bool suspended(int worldRank, granule::Granule& granule, const snapshot::Snapshot* snapshot,
                 std::string& error) override;
  // With a directory a rank's section is a copy of its memory, taken
  // before it goes on, so it rewinds in place; without one every rank
  // rewinds into a fresh instance from its snapshot, which is how that
  // round trip is tested.
  // In a live move's round every rank rewinds in place but the one that
  // departs.
  bool resumesInPlace(int) override { return moveRound_.load() || !policy_.directory.empty(); }
  bool arrive(int worldRank, granule::Granule& granule, std::string& error) override;
  void setRankAdoption(RankAdoption adopt) override;
  bool rankLeft(int worldRank) override;

  // A live move, in this process (the drill of issue 22's move between
  // hosts, SYNERGY_TEST_LIVE_MOVE): at the job's barrier control point
  // `atControlPoint` (counted from 1), or the first after it where every
  // rank can be suspended and nothing is in flight, rank `worldRank`
  // departs (its state encoded as a checkpoint records it, its instance
  // freed) and arrives in a fresh instance on a new thread (arrive()).
  // The others rewind in place but are held at the control point until it
  // has arrived, as a move between hosts must hold them until the routes
  // to its new host are switched: none of them can send to it, or finish
  // a collective with it, while it is nowhere. An arrival that fails ends
  // the job (the launcher aborts it, naming the rank), which ends their
  // wait; one that never comes is reported by the deadlock check
  // (World::checkDeadlock), for which a held rank is blocked.
  // With `printCosts` each half's wall and CPU time, and how long the
  // others were held, go to stderr. `corruptForTest` flips a bit of the
  // departing bytes' checksum, so that the arrival fails (a test hook).
  void setLiveMove(int worldRank, uint64_t atControlPoint, bool printCosts,
                   bool corruptForTest = false) {
    liveMoveRank_ = worldRank;
    liveMoveAt_ = atControlPoint;
    printMoveCosts_ = printCosts;
    corruptMoveForTest_ = corruptForTest;
  }

  // SYNERGY_LIVE_MOVE_STATS on a part a live move may bring a rank to: its
  // arrival's cost goes to stderr as on the source (setLiveMove).
  void setMoveCostsPrinted(bool print) { printMoveCosts_ = print; }

  void noteStateNotCheckpointed(int worldRank, const std::string& what,
                                const std::string& notMovable) override;
  void setOutputDrain(std::function<void()> drain) override;
  void setOutputCount(std::function<uint64_t()> count) override;
  void setQuiescenceCheck(std::function<std::string()> check) override;
  void setUnfinishedLineCheck(std::function<std::string()> check) override;
  void setOutputHandOver(OutputHandOver handOver) override;
  void setRankWaiting(RankWaiting waiting) override;
  bool prepareRank(int worldRank, granule::Granule& granule, std::string& error) override;

  // The job record each checkpoint file carries (its output offsets are
  // filled in at each checkpoint); `unresumable` there is a reason that
  // holds for the whole job.
  void setJob(JobRecord job) { job_ = std::move(job); }
  // Resumes the job from `image`: prepareRank restores each rank from it and
  // starts its rewind at the barrier where it was taken; checkpoints taken
  // from here on continue its sequence.
  void resumeFrom(const CheckpointImage* image) {
    resumeFrom_ = image;
    if (image) firstSequence_ = image->sequence;
  }
  // Resumes the job from an image that arrives only while this part joins
  // the others (a part of a job whose hosts share no checkpoint directory
  // gets it from part 0, cluster/CheckpointAgreement.h): the first
  // prepareRank waits for it with `await`, whose nullptr (and error) fails
  // the restore.
  void resumeOnArrival(std::function<const CheckpointImage*(std::string& error)> await) {
    awaitResume_ = std::move(await);
  }

  // A part of a job spread over hosts (see the header comment); set before
  // any rank runs.
  // Before any rank runs.
  void setHostParts(HostParts* parts);
  // A part of a job spread over hosts, before it leaves the others: waits
  // until its checkpoint writes are done (part 0's: committed, or given up
  // because the job aborted).
  void finishWrites() { backgroundWrites_.finish(); }

  CheckpointStatistics statistics();

 private:
  // Waits until every rank has arrived; the last one runs `last` (under the
  // lock) before anyone leaves. False when the job aborted meanwhile.
  template <typename Last>
  bool meet(int worldRank, std::unique_lock<std::mutex>& lock, Last&& last);
  bool due() const;
  size_t localIndexOf(int worldRank) const;
  // On one host at an interval: whether the rank at `localIndex` of
  // worldRanks_, which has just reached its `reached`th control point,
  // meets the others there (see the header comment); under the lock.
  bool meetsHere(size_t localIndex, uint64_t reached);
  JobRecord recordOfThisRound();
  // This round's sections go to backgroundWrites_, which counts the
  // checkpoint once written (under the lock, as the caller).
  void queueCheckpoint();
  // What the writes know of each rank's section, by world rank (see
  // SectionChunks below).
  struct SectionChunks;
  // Shared only so that a queued write (a std::function) can be copied; one
  // thread holds each at a time.
  using ChunksByRank = std::map<int, std::shared_ptr<SectionChunks>>;
  bool writeCheckpoint(const JobRecord& job, const std::vector<std::string>& sections,
                       const std::vector<int>& worldRanks, ChunksByRank& chunks,
                       uint64_t sequence, std::string& error);
  // replaceFileDurably, recycled, with what `chunks` know of the pieces
  // (`pieceRanks`: each piece's world rank, -1 for none) when the spare is
  // the file placed two writes ago and the piece lies where it lay there.
  bool replaceIncrementally(const std::string& name, uint64_t headBytes, const HeadWriter& head,
                            std::vector<ReplacePiece> pieces, const std::vector<int>& pieceRanks,
                            ChunksByRank& chunks, ReplaceCounts& counts, std::string& error);
  // Checks the sections' CRC-32Cs (and lengths) before the file's head is
  // written; false with a one-line `error` fails the checkpoint.
  using SectionsCheck = std::function<bool(const std::vector<uint32_t>& checksums,
                                           const std::vector<uint64_t>& sizes, std::string& error)>;
  // Part 0 or a job on one host: the checkpoint file of every rank's
  // section, in world rank order.
  bool commitCheckpointFile(const JobRecord& job, uint64_t sequence,
                            const std::vector<ReplacePiece>& sections,
                            const SectionsCheck& checkSections, std::string& error,
                            const std::vector<int>& pieceRanks = {},
                            ChunksByRank* chunks = nullptr);
  // `worldRanks` and `partOfRanks`: this part's ranks and the job's table
  // when the checkpoint's round was decided.
  bool writePartCheckpoint(const JobRecord& job, const std::vector<std::string>& sections,
                           const std::vector<int>& worldRanks,
                           const std::vector<uint32_t>& partOfRanks, uint64_t sequence,
                           const PartOutput& output, ChunksByRank& chunks, std::string& error);
  // The buffer for the next section of the rank at `localIndex` of
  // worldRanks_, and the written sections given back, in that order.
  std::string takeSpareSection(size_t localIndex);
  void keepSpareSections(std::vector<std::string> sections);

  // This part's ranks: a live move between parts adds the rank it takes in
  // (takeInArrival) and drops the one that left (arrive), under the lock.
  int ranks_;
  std::vector<int> worldRanks_;
  const CheckpointPolicy policy_;
  const Digest programDigest_;
  std::mutex mutex_;
  int arrived_ = 0;
  std::vector<int> waiting_;  // the world ranks that arrived this round
  // Read without the lock by the ranks waiting through rankWaiting_.
  std::atomic<uint64_t> generation_ = 0;
  // The round in progress.
  bool everyoneCan_ = true;
  // Whether every rank of the round could suspend for a live move (which
  // carries pending receives: agreeToSuspend's canMoveLive), and the first
  // reason not.
  bool everyoneCanMove_ = true;
  std::string firstMoveRefusal_;
  std::string firstRefusal_;
  bool decision_ = false;
  std::vector<std::string> sections_;
  std::string failure_;
  std::chrono::steady_clock::time_point roundStart_;
  // When the last checkpoint was taken (or the job started), in
  // nanoseconds of CLOCK_MONOTONIC (steady_clock's clock): read without the
  // lock by every rank at every control point (due()).
  std::atomic<int64_t> lastCheckpointNs_;
  CheckpointStatistics statistics_;
  JobRecord job_;
  std::string roundUnresumable_;  // the first rank's reason in this round
  // Each rank's reason at its last control point (noteStateNotCheckpointed),
  // by its index in worldRanks_: the round's is the first of them once the
  // ranks meet, so that a reason noted where they did not meet is not
  // carried over to a later checkpoint.
  std::vector<std::string> rankUnresumable_;
  // The same for a live move (RankState::objectsNotMovable).
  std::vector<std::string> rankUnmovable_;
  // The control points each rank has reached, by its world rank (a slot for
  // every rank of the job, controlPointSlots_),
  // and on one host at an interval (meetsHere) the one where every rank
  // meets because a checkpoint has fallen due (0: none named).
  // Each rank counts its own without the lock; meetingNamed_ is set, under
  // the lock, while meetingAt_ is not 0.
  // A rank counts and reads its own slot without the lock (agreeToSuspend's
  // fast path), which no live move's addRank/dropRank moves or replaces.
  // One cache line each: every rank bumps its own at every control point.
  struct alignas(64) ControlPointCount : std::atomic<uint64_t> {
    using std::atomic<uint64_t>::operator=;
  };
  std::unique_ptr<ControlPointCount[]> controlPointsReached_;
  size_t controlPointSlots_ = 0;
  uint64_t meetingAt_ = 0;
  std::atomic<bool> meetingNamed_ = false;
  // The control point, counted from 1, of the round in progress.
  uint64_t roundControlPoint_ = 0;
  std::function<void()> drainOutput_;
  std::function<uint64_t()> outputCount_;
  HostParts* hostParts_ = nullptr;
  uint64_t sequence_ = 0;  // the job's number of this round's checkpoint
  // The checkpoints handed to backgroundWrites_, written or not; each takes
  // the next number.
  uint64_t checkpointsQueued_ = 0;
  std::function<std::string()> quiescenceCheck_;
  std::function<std::string()> unfinishedLineCheck_;
  OutputHandOver outputHandOver_;
  RankWaiting rankWaiting_;
  const CheckpointImage* resumeFrom_ = nullptr;
  std::function<const CheckpointImage*(std::string& error)> awaitResume_;
  // The communicators prepareRank has rebuilt so far (it runs for one rank
  // after the other, before any rank runs).
  ResumedCommunicators resumedComms_;
  bool contextDrawsResumed_ = false;  // resumeContextDraws, once per World
  uint64_t firstSequence_ = 0;
  uint64_t killAfter_ = 0;  // test hooks, see the constructor
  bool tearNext_ = false;
  // What the background writes did, kept apart from statistics_ so that
  // they never take mutex_.
  std::atomic<uint64_t> backgroundWritten_ = 0;
  std::atomic<uint64_t> backgroundUnwritten_ = 0;
  std::atomic<uint64_t> backgroundBytes_ = 0;
  std::atomic<uint64_t> writtenSequence_ = 0;  // the last checkpoint this part wrote
  std::atomic<uint64_t> backgroundNanoseconds_ = 0;
  std::atomic<uint64_t> backgroundCpuNanoseconds_ = 0;
  std::atomic<uint64_t> backgroundChangedBytes_ = 0;
  // The sections of the last checkpoint written, kept for the ranks to copy
  // the next one into (encodeRankSection's buffer): their pages are already
  // mapped, which makes the copy several times cheaper than into fresh
  // memory, for as much memory as one checkpoint of this part's ranks held
  // anyway. One per rank of the part, by its index in worldRanks_: each
  // rank gets its own section back, sized for its memory, so none is
  // handed one too small for it (encodeRankSection).
  std::mutex spareMutex_;
  std::vector<std::string> spareSections_;
  // Per world rank (its entry touched only by its own thread, the map
  // under spareMutex_): the kernel's list of the pages the rank wrote since
  // its last section was built (snapshot/WrittenPages.h), armed when it was
  // built, and that section's buffer, by address and size: a spare that is
  // that very buffer is rebuilt over itself from the written pages alone
  // (patchRankSection); any other is built whole. Null where the kernel
  // lacks the tracking or the rank's memory is not its own anonymous
  // memory, and while the rank's tracking rests (`rest`).
  struct WrittenSince {
    std::unique_ptr<snapshot::WrittenPages> pages;
    const char* section = nullptr;
    size_t sectionBytes = 0;
    WriteTrackingRest rest;
  };
  std::map<int, WrittenSince> writtenSince_;
  // Per world rank, beside its section: which chunks of it changed in this
  // round and the one before (chunk indices as in PieceChunks), and what
  // the last write learnt of them, for the buffer at `section`. Handed with
  // the sections to the write (roundChunks_, under mutex_) and back
  // (spareChunks_, under spareMutex_), so that only one thread holds it.
  struct SectionChunks {
    PieceChunks chunks;
    std::vector<uint8_t> changedBefore;  // empty: unknown (all changed)
    const char* section = nullptr;
    size_t sectionBytes = 0;
  };
  ChunksByRank spareChunks_;
  ChunksByRank roundChunks_;
  // The background writes' own: the last two files they placed (oldest
  // first), each with where each rank's section began in it.
  struct PlacedFile {
    FileIdentity identity;
    bool exchanged = false;
    std::map<int, uint64_t> sectionAt;
  };
  std::vector<PlacedFile> placedFiles_;
  std::atomic<uint64_t> backgroundSkippedBytes_ = 0;
  // Encodes a rank's section at a checkpoint that rewinds it in place,
  // over its spare section when that one is the rank's last.
  std::string encodeInPlace(int worldRank, granule::Granule& granule, std::string spare,
                            const std::vector<OpenFile>& files, const MpiObjects& mpi);
  // Part 0: where the other parts' heads are read. Only the background
  // writes' thread touches it.
  std::string partHeadBuffer_;
  // The live move (setLiveMove): the rank and the control point it departs
  // at (as controlPointsReached_ counts them, so that a part can be told of
  // a move while its ranks run); whether this round is the move's; the departed rank's bytes until it arrives, and the live
  // communicators it finds again by context.
  // liveMoveRank_ is read without the lock by agreeToSuspend's fast path.
  std::atomic<int> liveMoveRank_ = -1;
  uint64_t liveMoveAt_ = 0;
  bool printMoveCosts_ = false;
  bool corruptMoveForTest_ = false;
  std::atomic<bool> moveRound_ = false;
  DepartingBytes departure_;
  ResumedCommunicators liveCommunicators_;
  std::chrono::steady_clock::time_point departedAt_;
  // Whether the ranks that stay are held for the departed one's arrival
  // (read without the lock by the held ranks' waits), the ranks held, and
  // since when (the release of the move's round).
  // A failed arrival leaves it kArrivalAwaited: the job's abort ends the
  // held ranks' waits.
  enum ArrivalState : int { kNoArrivalAwaited, kArrivalAwaited, kArrived };
  std::atomic<int> arrival_ = kNoArrivalAwaited;
  std::vector<int> heldForArrival_;
  std::chrono::steady_clock::time_point heldSince_;
  // Marks the arrival done and wakes the held ranks; under the lock.
  void releaseHeldRanks();
  // A live move between parts, under the lock. The target: the rank part
  // 0 had it take in (HostParts::takeArrivingRank) joins worldRanks_ and
  // its thread starts (adopt_), to arrive from `departure_`; once, after
  // agree() at the move's round, while this part's ranks are held. The
  // source: `worldRank` leaves worldRanks_ (the part may be left with none:
  // it then ends, CheckpointAgreement's emptied part). False with `error`
  // for a rank out of the job's range, already here, or not here to drop.
  void takeInArrival();
  bool addRank(int worldRank, std::string& error);
  bool dropRank(int worldRank, std::string& error);
  RankAdoption adopt_;
  int adoptedRank_ = -1;         // the rank taken in, until it has arrived
  std::vector<int> leftRanks_;   // the ranks that left this part (rankLeft)
  bool liveMoveSuspended(int worldRank, granule::Granule& granule, std::string& error);
  // Last: destroyed first, so every write is done before the rest goes.
  BackgroundWrites backgroundWrites_;
};

}  // namespace synergy::checkpoint

//===- RemoteJob.cpp - Running an MPI job on a cluster host ----------------===//
//
// This file implements RemoteJob.h. The job's frames arrive on the transport's
// I/O thread, which writes output straight to this process's stdout and
// stderr (a whole line at a time, so that the lines of several hosts never
// mix) and records the outcome; the calling thread waits for it.
//
//===----------------------------------------------------------------------===//
#include "scheduler/RemoteJob.h"

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint/CheckpointedJob.h"
#include "cluster/CheckpointHolders.h"
#include "cluster/ClusterState.h"
#include "cluster/JobMessages.h"
#include "cluster/OutputNotes.h"
#include "cluster/RankRoutes.h"
#include "scheduler/OutputJournal.h"
#include "scheduler/PartZeroPin.h"
#include "scheduler/PlacementPolicy.h"
#include "scheduler/SchedulingRecords.h"
#include "transport/ClusterToken.h"
#include "transport/Transport.h"
#include "util/FileIO.h"
#include "util/LittleEndian.h"
#include "util/Sha256.h"

namespace synergy::scheduler {

namespace {

// The longest a queued job sleeps before it renews its lease (kQueuedJobLease)
// and checks whether the head of the queue was abandoned; a freed slot or a
// new head wakes it at once.
constexpr auto kQueueCheckInterval = std::chrono::milliseconds(1000);
// The pause before a queued job retries a command the state store failed.
constexpr auto kStoreRetryPause = std::chrono::milliseconds(200);
// How long the other parts of a job have, once one part has failed, to
// report their exit after all their output: a failing part stops the
// others itself (MpiPeerLink.h), whose ranks then have the single-host
// abort grace period to unwind.
constexpr auto kPartsEndLimit = std::chrono::seconds(10);

// "a, b, c", for the hosts named in a message.
std::string commaSeparated(const std::vector<std::string>& items) {
  std::string list;
  for (const std::string& item : items) list += (list.empty() ? "" : ", ") + item;
  return list;
}

class RemoteJobError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The job lost the connection to a host before that host's part ended.
class HostLost : public RemoteJobError {
 public:
  HostLost(const std::string& message, std::string hostId)
      : RemoteJobError(message), hostId(std::move(hostId)) {}
  std::string hostId;
};

struct JobOutcome {
  int status = 2;
  std::string error;  // nonempty when the job did not run to an exit status
  std::string lostHost;  // with `error`: the host whose connection was lost
};

void writeAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t written = write(fd, data, size);
    if (written <= 0) return;
    data += written;
    size -= size_t(written);
  }
}

// "1.2.3.4:PORT" or "[v6]:PORT" as registered by synergyd.
bool splitHostAddress(const std::string& text, std::string& address, uint16_t& port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  address = text.substr(0, colon);
  if (address.front() == '[' && address.back() == ']')
    address = address.substr(1, address.size() - 2);
  unsigned long value = 0;
  for (char c : text.substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + unsigned(c - '0');
    if (value > 65535) return false;
  }
  port = uint16_t(value);
  return true;
}

// One host's part of the job: its host and the RunJob it gets.
struct PlacedPart {
  cluster::HostRecord host;
  cluster::RunJobRequest request;
  std::vector<unsigned> worldRanks;  // the ranks it runs, in increasing order
  std::string rankText;              // them for messages: "ranks 0,2", "rank 1"
};

// Throws when the live hosts together have fewer slots than the job needs.
void checkCapacity(const std::vector<cluster::HostRecord>& hosts, unsigned ranks,
                   bool onePartPerHost) {
  unsigned capacity = 0;
  unsigned hostsWithSlots = 0;
  for (const cluster::HostRecord& host : hosts)
    if (!host.draining) {
      capacity += host.slots;
      hostsWithSlots += host.slots > 0;
    }
  if (capacity < ranks)
    throw RemoteJobError("the cluster has " + std::to_string(capacity) + " slots, not the " +
                         std::to_string(ranks) + " the job needs");
  if (onePartPerHost && hostsWithSlots < ranks)
    throw RemoteJobError("the cluster has " + std::to_string(hostsWithSlots) +
                         " hosts with slots, not the " + std::to_string(ranks) +
                         " the thread job's parts need, one each");
}

bool sharesAHost(const std::vector<HostShare>& shares) {
  return std::any_of(shares.begin(), shares.end(),
                     [](const HostShare& share) { return share.ranks > 1; });
}

// Waits until the job is the queue's head and its placement's slots are
// taken; returns the parts, one per host in the order of its first rank.
// A fixed placement (a move's, Migration.h) may give a host ranks that are
// not consecutive: its runs, in rank order, name the host more than once,
// and the host's part runs the ranks of all its runs.
// A waiting job sleeps in Redis until a change to the queue or the slots
// wakes it (ClusterState::waitForTurn), and at least every
// kQueueCheckInterval renews its lease and looks for an abandoned head.
std::vector<PlacedPart> placeJob(cluster::ClusterState& state, const PlacementPolicy& policy,
                                 const cluster::RunJobRequest& job, const std::string& app,
                                 const RemoteJobOptions& options) {
  const std::vector<std::string>& excludedHosts = options.excludedHosts;
  unsigned ranks = job.ranks;
  // A host this client lost may still be registered until its lease ends.
  auto liveHosts = [&] {
    std::vector<cluster::HostRecord> hosts = state.hosts();
    hosts.erase(std::remove_if(hosts.begin(), hosts.end(),
                               [&](const cluster::HostRecord& host) {
                                 return std::find(excludedHosts.begin(), excludedHosts.end(),
                                                  host.id) != excludedHosts.end();
                               }),
                hosts.end());
    return hosts;
  };
  // Read once before the first try, and again before each later one.
  std::optional<std::vector<cluster::HostRecord>> knownHosts = liveHosts();
  checkCapacity(*knownHosts, ranks, options.onePartPerHost);
  // The parts of a job started with `shares` of `hosts`, as said above.
  auto placedParts = [&](const std::vector<cluster::HostRecord>& hosts,
                         const std::vector<HostShare>& shares) {
    std::vector<std::string> partHosts;
    std::vector<uint32_t> partRanks;  // by part
    std::vector<uint32_t> rankParts;  // by world rank
    for (const HostShare& share : shares) {
      auto known = std::find(partHosts.begin(), partHosts.end(), share.hostId);
      uint32_t part = uint32_t(known - partHosts.begin());
      if (known == partHosts.end()) {
        partHosts.push_back(share.hostId);
        partRanks.push_back(0);
      }
      partRanks[part] += share.ranks;
      rankParts.insert(rankParts.end(), share.ranks, part);
    }
    cluster::RankRoutes routes(rankParts, uint32_t(partHosts.size()));
    std::vector<PlacedPart> placed;
    for (uint32_t i = 0; i < partHosts.size(); ++i) {
      PlacedPart part;
      for (const cluster::HostRecord& host : hosts)
        if (host.id == partHosts[i]) part.host = host;
      part.request = job;
      part.request.ranks = partRanks[i];
      // A checkpointing job runs as parts even on one host: the part's
      // coordinator is the one that writes spread checkpoints.
      if (partHosts.size() > 1 || !job.checkpointDirectory.empty()) {
        part.request.partRanks = partRanks;
        part.request.partIndex = i;
        if (partHosts.size() != shares.size()) part.request.rankParts = rankParts;
      }
      part.worldRanks.assign(routes.ranksOf(i).begin(), routes.ranksOf(i).end());
      part.rankText = routes.describe(i);
      placed.push_back(std::move(part));
    }
    return placed;
  };
  // A command that fails is retried, on a fresh connection, until the
  // store has failed for kStateOutageLimit. A start whose reply was lost
  // took all the slots of `shares` or none (one script), so the next try
  // first asks the store whether the job runs. (Should the lost start run
  // only after that look, the retried start finds the job gone from the
  // queue and ends it with an error; its slots are freed.)
  std::optional<std::chrono::steady_clock::time_point> failingSince;
  bool startUnknown = false;
  std::vector<cluster::HostRecord> hosts;
  std::vector<HostShare> shares;
  for (;;) {
    bool startSent = false;
    try {
      if (startUnknown) {
        std::vector<cluster::JobRecord> running = state.runningJobs();
        startUnknown = false;
        if (std::any_of(running.begin(), running.end(),
                        [&](const cluster::JobRecord& record) { return record.id == job.jobId; }))
          return placedParts(hosts, shares);
      }
      std::optional<uint64_t> head = state.renewQueuedJobAndReadHead(job.jobId);
      failingSince.reset();
      if (!head)
        throw RemoteJobError("job " + std::to_string(job.jobId) +
                             " lost its place in the cluster queue (its lease ran out)");
      if (*head != job.jobId) {
        if (!state.dropAbandonedQueueHead()) state.waitForTurn(job.jobId, kQueueCheckInterval);
        continue;
      }
      hosts = knownHosts ? std::move(*knownHosts) : liveHosts();
      knownHosts.reset();
      checkCapacity(hosts, ranks, options.onePartPerHost);
      shares.clear();
      // A fixed placement's world rank 0 host that the pin replaced.
      std::string pinnedAway;
      if (!options.placement.empty() || options.fragment) {
        cluster::HostCounts fixed =
            options.placement.empty()
                ? cluster::fragmentedPlacement(hosts, ranks, options.fragment)
                : options.placement;
        if (fixed.empty())
          throw RemoteJobError("--fragment " + std::to_string(options.fragment) + ": fewer than " +
                               std::to_string(options.fragment) +
                               " live hosts have the free slots for their share of the ranks");
        for (const auto& [host, count] : fixed) shares.push_back({host, count});
      } else {
        shares = policy.placeRanks(hosts, state.runningJobs(), app, ranks);
        // Until enough hosts have a free slot each (slots a finished job
        // held may not be back yet), a thread job waits its turn.
        if (options.onePartPerHost && sharesAHost(shares)) shares.clear();
      }
      if (!options.checkpointHolders.empty() && !shares.empty()) {
        std::optional<std::string> partZeroHost =
            choosePartZeroHost(options.checkpointHolders, hosts, shares.front().hostId);
        if (!partZeroHost) {
          throw RemoteJobError("the hosts that hold the checkpoint to restart from (" +
                               commaSeparated(options.checkpointHolders) +
                               ") are gone, draining or without slots");
        }
        if (!options.placement.empty() && *partZeroHost != shares.front().hostId)
          pinnedAway = shares.front().hostId;
        pinPartZero(shares, *partZeroHost);
      }
      std::optional<cluster::JobRecord> started;
      startSent = !shares.empty();
      if (shares.size() == 1) {
        started = state.startQueuedJob(shares[0].hostId);
      } else if (!shares.empty()) {
        std::vector<std::pair<std::string, unsigned>> parts;
        for (const HostShare& share : shares) parts.push_back({share.hostId, share.ranks});
        started = state.startQueuedJobAcross(parts);
      }
      if (!started) {
        state.waitForTurn(job.jobId, kQueueCheckInterval);
        continue;
      }
      if (started->id != job.jobId)
        throw RemoteJobError("the cluster queue changed under job " + std::to_string(job.jobId));
      if (!pinnedAway.empty())
        std::fprintf(stderr,
                     "synergy-run: note: world rank 0 runs on %s, which holds the checkpoint to "
                     "resume from, not on %s as placed\n",
                     shares.front().hostId.c_str(), pinnedAway.c_str());
      return placedParts(hosts, shares);
    } catch (const cluster::StateStoreError&) {
      auto now = std::chrono::steady_clock::now();
      if (!failingSince) failingSince = now;
      if (now - *failingSince >= cluster::kStateOutageLimit) throw;
      if (startSent) startUnknown = true;
      std::this_thread::sleep_for(kStoreRetryPause);
    }
  }
}

// What a connection's end adds to "lost the connection to host H": nothing
// when it closed or failed as a host that went away does ("read failed:
// Connection reset by peer", a frame cut short), else ": " and the reason
// it was dropped (a frame the host should not have sent), taken from the
// transport's `line` when that names `connection`.
std::string droppedBecause(const std::string& line, const transport::Connection& connection) {
  std::string prefix = "dropped connection to " + connection.peerName() + ": ";
  if (line.compare(0, prefix.size(), prefix) != 0) return {};
  std::string reason = line.substr(prefix.size());
  for (const char* wentAway : {"read failed: ", "write failed: ", "truncated frame"})
    if (reason.compare(0, std::strlen(wentAway), wentAway) == 0) return {};
  return ": " + reason;
}


// What one host has sent of a stream and not yet written: output from
// several hosts is written a whole line at a time, so that their lines
// never mix.
// A checkpointing job's client also notes in its OutputJournal where each
// piece of a part's stdout went.
struct PendingOutput {
  std::vector<uint8_t> partialLine[2];
  uint32_t part = 0;
  OutputJournal* journal = nullptr;
  uint64_t stdoutWritten = 0;  // bytes of the part's stdout written so far
};

void writeStream(PendingOutput& pending, int stream, const uint8_t* data, size_t size) {
  if (size == 0) return;
  writeAll(stream == 1 ? STDOUT_FILENO : STDERR_FILENO, data, size);
  if (stream != 1) return;
  if (pending.journal) pending.journal->wrote(pending.part, pending.stdoutWritten, size);
  pending.stdoutWritten += size;
}

void writeWholeLines(PendingOutput& pending, int stream, const uint8_t* data, size_t size) {
  std::vector<uint8_t>& partial = pending.partialLine[stream - 1];
  const uint8_t* end = data + size;
  const uint8_t* lastNewline = nullptr;
  for (const uint8_t* p = end; p != data; --p)
    if (p[-1] == '\n') {
      lastNewline = p;
      break;
    }
  if (!lastNewline) {
    partial.insert(partial.end(), data, end);
    return;
  }
  writeStream(pending, stream, partial.data(), partial.size());
  partial.clear();
  writeStream(pending, stream, data, size_t(lastNewline - data));
  partial.assign(lastNewline, end);
}

void flushPartialLines(PendingOutput& pending) {
  for (int stream = 1; stream <= 2; ++stream) {
    std::vector<uint8_t>& partial = pending.partialLine[stream - 1];
    writeStream(pending, stream, partial.data(), partial.size());
    partial.clear();
  }
}

// Sends `module` to a host that asked for it: its length, then its bytes in
// chunks that each fit a frame, written from `module` itself, which lives
// as long as the job's transport.
void sendModule(transport::Connection& host, const std::string& module) {
  std::vector<uint8_t> head(transport::kModuleHeadBytes);
  for (size_t i = 0; i < head.size(); ++i) head[i] = uint8_t(uint64_t(module.size()) >> (8 * i));
  std::vector<transport::LentFrame> frames;
  frames.push_back({transport::FrameType::ModuleHead, std::move(head), {}});
  const auto* bytes = reinterpret_cast<const uint8_t*>(module.data());
  for (uint64_t offset = 0; offset < module.size(); offset += transport::kMaxModuleChunkBytes) {
    std::vector<uint8_t> chunkHead(transport::kModuleChunkHeaderBytes);
    for (size_t i = 0; i < chunkHead.size(); ++i) chunkHead[i] = uint8_t(offset >> (8 * i));
    frames.push_back({transport::FrameType::ModuleChunk, std::move(chunkHead),
                      {{bytes + offset, size_t(std::min<uint64_t>(transport::kMaxModuleChunkBytes,
                                                                  module.size() - offset))}}});
  }
  host.sendLent(std::move(frames), [] {});
}

// A checkpoint that only some hosts hold (synergyd --checkpoint-root):
// the job whose checkpoint it is, its record, and the holders the restart's
// part 0 may run on (PartZeroPin.h).
struct HeldCheckpoint {
  uint64_t jobId = 0;
  cluster::CheckpointHolders holders;
  std::vector<std::string> usableHolders;
};

// The record of job `jobId`'s last checkpoint, or of the one it was
// resumed from when it has none of its own yet, and its holders that are
// neither lost nor excluded and are registered, not draining, with slots;
// nullopt with `why` (for the client's note) when there are none.
std::optional<HeldCheckpoint> heldCheckpoint(cluster::ClusterState& state,
                                             const RemoteJobOptions& options, uint64_t jobId,
                                             const std::string& lostHost, std::string& why) {
  try {
    cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
    for (uint64_t job : {jobId, options.resumedJob}) {
      if (job == 0) continue;
      std::optional<cluster::CheckpointHolders> holders = cluster::readCheckpointHolders(redis, job);
      if (!holders) continue;
      std::vector<cluster::HostRecord> hosts = state.hosts();
      std::vector<std::string> usable, unusable;
      for (const std::string& holder : holders->hostIds) {
        auto host = std::find_if(hosts.begin(), hosts.end(),
                                 [&](const cluster::HostRecord& record) { return record.id == holder; });
        const char* because =
            holder == lostHost || std::find(options.excludedHosts.begin(), options.excludedHosts.end(),
                                            holder) != options.excludedHosts.end()
                ? "lost"
            : host == hosts.end() ? "gone"
            : host->draining      ? "draining"
            : host->slots == 0    ? "without slots"
                                  : nullptr;
        if (because)
          unusable.push_back(holder + " " + because);
        else
          usable.push_back(holder);
      }
      if (!usable.empty()) return HeldCheckpoint{job, std::move(*holders), std::move(usable)};
      why = "checkpoint " + std::to_string(holders->sequence) +
            " is held by no usable host: " + commaSeparated(unusable);
      return std::nullopt;
    }
    why = "no checkpoint yet";
  } catch (const cluster::StateStoreError& e) {
    why = std::string("its checkpoint's holders cannot be read: ") + e.what();
  }
  return std::nullopt;
}

// The hosts that hold job `jobId`'s last checkpoint, when the cluster
// state records them (synergyd --checkpoint-root), it is checkpoint
// `sequence` (0: any) and one of them can take world rank 0 now; empty
// otherwise (no record, another checkpoint than the one resumed, or a
// checkpoint seen from a shared directory, whose part 0 may run anywhere).
// A record that cannot be read is noted.
std::vector<std::string> holdersOf(const RemoteJobOptions& options, uint64_t jobId,
                                   uint64_t sequence) {
  try {
    cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
    std::optional<cluster::CheckpointHolders> holders = cluster::readCheckpointHolders(redis, jobId);
    if (!holders || (sequence != 0 && holders->sequence != sequence)) return {};
    cluster::ClusterState state(options.state);
    std::vector<cluster::HostRecord> hosts = state.hosts();
    if (!choosePartZeroHost(holders->hostIds, hosts)) return {};
    return holders->hostIds;
  } catch (const cluster::StateStoreError& e) {
    std::fprintf(stderr, "synergy-run: note: the holders of job %llu's checkpoint cannot be read "
                 "(%s); world rank 0 goes where the policy puts it\n",
                 (unsigned long long)jobId, e.what());
    return {};
  }
}

// After `lost` ended checkpointing job `jobId`: the options that resume it
// from its last checkpoint on the other hosts, with stdout cut back to it.
// The checkpoint is the client's directory's, or, when the hosts keep
// their own (heldCheckpoint), one that a surviving host holds. A job that
// has no checkpoint of its own yet (none in the directory, or another
// job's, or one that cannot be resumed) starts again from the beginning,
// with stdout cut back to where the output of the first job of this
// client began (every part's count is then 0): a job this client started,
// or a restart or move of one, whose checkpoint's holders are all gone. A
// resumed job without a checkpoint of its own goes back to the one it was
// resumed from; one resumed by hand with none left fails.
std::optional<RemoteJobOptions> restartFromCheckpoint(cluster::ClusterState& state,
                                                      const RemoteJobOptions& options,
                                                      uint64_t jobId, const HostLost& lost) {
  std::string error;
  std::optional<checkpoint::CheckpointImage> image = checkpoint::readResumableCheckpoint(
      options.checkpointDirectory, options.checkpointProgram, error);
  uint64_t checkpointedJob = image && !image->job.partOutputs.empty()
                                 ? image->job.partOutputs.front().jobId
                                 : 0;
  bool ownCheckpoint = checkpointedJob != 0 &&
                       (checkpointedJob == jobId || checkpointedJob == options.resumedJob);
  std::vector<checkpoint::PartOutput> outputs;
  uint64_t sequence = 0;
  std::vector<std::string> checkpointHolders;
  std::string notResumed = "no checkpoint yet";
  if (ownCheckpoint) {
    outputs = image->job.partOutputs;
    sequence = image->sequence;
  } else if (std::optional<HeldCheckpoint> held =
                 heldCheckpoint(state, options, jobId, lost.hostId, notResumed)) {
    ownCheckpoint = true;
    checkpointedJob = held->jobId;
    sequence = held->holders.sequence;
    checkpointHolders = std::move(held->usableHolders);
    for (uint32_t part = 0; part < held->holders.stdoutBytes.size(); ++part)
      outputs.push_back({held->jobId, part, held->holders.stdoutBytes[part]});
  }
  image.reset();
  uint64_t firstJob = options.firstJob ? options.firstJob : options.resume ? 0 : jobId;
  if (!ownCheckpoint && firstJob == 0) return std::nullopt;
  if (!ownCheckpoint)
    for (uint32_t part = 0; part < options.ranks; ++part) outputs.push_back({firstJob, part, 0});
  if (!cutStdoutToCheckpoint(options.checkpointDirectory, outputs, error))
    throw RemoteJobError(std::string(lost.what()) + ", and " + error);
  RemoteJobOptions restart = options;
  restart.resume = ownCheckpoint;
  restart.resumedJob = ownCheckpoint ? checkpointedJob : 0;
  // The parts resume from the checkpoint whose counts stdout was cut back
  // to, not from a later one a holder stored before part 0 recorded it.
  restart.resumeSequence = ownCheckpoint ? sequence : 0;
  restart.firstJob = firstJob;
  restart.checkpointHolders = std::move(checkpointHolders);
  restart.excludedHosts.push_back(lost.hostId);
  ++restart.restarts;
  // The move the client asked of the job (--consolidate-at, --fragment,
  // SYNERGY_FORCE_MIGRATION) is asked again only when it was not taken:
  // once done (live, the only way a job that was not restarted for it
  // finishes one), the restart goes where the policy puts it, and moved
  // jobs wait out the scheduler's no-move window from then on.
  if (options.fragment || options.forcedMigration || options.consolidateAt) {
    try {
      cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
      std::optional<cluster::MigrationRequest> move = cluster::readMigration(redis, jobId);
      if (move && move->state == "done") {
        restart.backgroundMoves = false;
        restart.movedAtMs = move->movedAtMs ? move->movedAtMs : wallClockMs();
        restart.fragment = 0;
        restart.forcedMigration.reset();
        restart.consolidateAt = 0;
      }
    } catch (const cluster::StateStoreError& e) {
      std::fprintf(stderr,
                   "synergy-run: note: the restart asks for the job's move again: its record "
                   "cannot be read: %s\n",
                   e.what());
    }
  }
  std::fflush(stdout);
  std::string from = ownCheckpoint ? "its checkpoint " + std::to_string(sequence)
                                   : "the beginning (" + notResumed + ")";
  std::fprintf(stderr,
               "synergy-run: note: %s; restarting the job from %s on the other hosts "
               "(restart %u)\n",
               lost.what(), from.c_str(), restart.restarts);
  return restart;
}

// Removes the cluster state's records of the holders of `jobs`'
// checkpoints once no restart can use them: those of a job that ran to its
// end with status 0 (its own and the one it was resumed from), and the one
// a job restarting from its own checkpoint was resumed from. A job that
// failed keeps its record until it expires, to find the hosts whose
// directories hold the checkpoint for a --resume by hand; so does one
// whose store fails here.
void forgetCheckpointHolders(const RemoteJobOptions& options, std::vector<uint64_t> jobs) {
  if (options.checkpointDirectory.empty()) return;
  try {
    cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
    for (uint64_t job : jobs)
      if (job != 0) cluster::deleteCheckpointHolders(redis, job);
  } catch (const cluster::StateStoreError&) {
  }
}

// Asks the daemons that hold copies of `jobs`' last checkpoints (the
// holders their records name, synergyd --checkpoint-root) to remove them
// (CheckpointForget), once a job has ended with status 0 and no restart
// can use them; before forgetCheckpointHolders, since a daemon removes
// only what a record says it holds. Each answer is awaited for a few
// seconds, so that the copies are gone when the client exits. A holder
// this client lost is skipped; one that cannot be reached, refuses or does
// not answer keeps its copy, with a note.
void removeCheckpointCopies(const std::string& token, const RemoteJobOptions& options,
                            const std::vector<uint64_t>& jobs) {
  constexpr auto kAnswerLimit = std::chrono::seconds(5);
  if (options.checkpointDirectory.empty() ||
      options.checkpointDirectory.size() > transport::kMaxCheckpointMirrorDirectoryBytes)
    return;
  struct HeldCopy {
    uint64_t job = 0;
    cluster::HostRecord host;
  };
  std::vector<HeldCopy> copies;
  try {
    cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
    cluster::ClusterState state(options.state);
    std::vector<cluster::HostRecord> hosts = state.hosts();
    for (uint64_t job : jobs) {
      std::optional<cluster::CheckpointHolders> holders =
          job == 0 ? std::nullopt : cluster::readCheckpointHolders(redis, job);
      if (!holders) continue;
      for (const std::string& holder : holders->hostIds) {
        auto host = std::find_if(hosts.begin(), hosts.end(),
                                 [&](const cluster::HostRecord& record) { return record.id == holder; });
        if (host != hosts.end() && std::find(options.excludedHosts.begin(),
                                             options.excludedHosts.end(),
                                             holder) == options.excludedHosts.end())
          copies.push_back({job, *host});
      }
    }
  } catch (const cluster::StateStoreError&) {
    return;  // the records stay too (forgetCheckpointHolders), until they expire
  }
  if (copies.empty()) return;
  std::mutex mutex;
  std::condition_variable changed;
  std::set<const transport::Connection*> answered, closed;
  transport::Transport transport(
      {.token = token,
       .onFrame =
           [&](transport::Connection& from, transport::Frame&& frame, std::string& reason) {
             if (frame.type != transport::FrameType::CheckpointForget ||
                 frame.payload.size() != transport::kCheckpointForgetAnswerBytes) {
               reason = "malformed answer to CheckpointForget";
               return false;
             }
             std::lock_guard<std::mutex> lock(mutex);
             answered.insert(&from);
             changed.notify_all();
             return true;
           },
       .onClosed =
           [&](transport::Connection& connection) {
             std::lock_guard<std::mutex> lock(mutex);
             closed.insert(&connection);
             changed.notify_all();
           },
       .log = {}});
  for (const HeldCopy& copy : copies) {
    std::string address, error;
    uint16_t port = 0;
    std::shared_ptr<transport::Connection> connection;
    if (!splitHostAddress(copy.host.address, address, port))
      error = "a malformed address";
    else
      connection = transport.connectionTo(address, port, error);
    if (connection) {
      std::vector<uint8_t> payload;
      util::appendLittleEndian(payload, copy.job, 8);
      util::appendLittleEndian(payload, options.checkpointDirectory.size(), 4);
      payload.insert(payload.end(), options.checkpointDirectory.begin(),
                     options.checkpointDirectory.end());
      connection->send(transport::FrameType::CheckpointForget, std::move(payload));
      std::unique_lock<std::mutex> lock(mutex);
      const transport::Connection* sent = connection.get();
      if (changed.wait_for(lock, kAnswerLimit,
                           [&] { return answered.count(sent) || closed.count(sent); }) &&
          answered.count(sent))
        continue;
      error = closed.count(sent) ? "it closed the connection (see its log)" : "it did not answer";
    }
    std::fprintf(stderr, "synergy-run: note: host %s keeps its copy of job %llu's checkpoint (%s)\n",
                 copy.host.id.c_str(), (unsigned long long)copy.job, error.c_str());
  }
}

// Writes the migration the client asks of its job now that it is placed
// as `parts`; one that cannot be planned is noted and the job runs unmoved.
void askForMigration(cluster::ClusterState& state, const RemoteJobOptions& options,
                     uint64_t jobId, const std::vector<PlacedPart>& parts) {
  std::vector<std::string> rankHosts;
  for (const PlacedPart& part : parts) {
    for (unsigned rank : part.worldRanks) {
      if (rankHosts.size() <= rank) rankHosts.resize(rank + 1);
      rankHosts[rank] = part.host.id;
    }
  }
  std::string error;
  std::optional<cluster::MigrationRequest> request =
      options.forcedMigration
          ? cluster::planMove(rankHosts, options.forcedMigration->ranks,
                              options.forcedMigration->host, state.hosts(),
                              options.forcedMigration->at, error)
          : cluster::planConsolidation(rankHosts, state.hosts(), options.consolidateAt, error);
  if (!request) {
    std::fprintf(stderr, "synergy-run: note: job %llu is not moved: %s\n",
                 (unsigned long long)jobId, error.c_str());
    return;
  }
  cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
  cluster::requestMigration(redis, jobId, *request);
}

// A job that asks for its own move, for an experiment.
bool movesByItself(const RemoteJobOptions& options) {
  return options.fragment || options.forcedMigration || options.consolidateAt;
}

// Lets synergyd's background scheduler move the job (BackgroundScheduler.h);
// when the record cannot be written the job runs on unmoved, with a note.
void offerToScheduler(const RemoteJobOptions& options, uint64_t jobId) {
  try {
    cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
    writeJobScheduling(redis, jobId, {options.policy, true, options.movedAtMs, 0});
  } catch (const cluster::StateStoreError& e) {
    std::fprintf(stderr, "synergy-run: note: job %llu is left out of background moves: %s\n",
                 (unsigned long long)jobId, e.what());
  }
}

// After every part of `jobId` ended with kMigratedExitStatus: the options
// that start it again from its checkpoint on the migration's placement
// (world rank 0 on a host that holds it, holdersOf), or
// nullopt when no migration stopped it (the program itself exited so).
std::optional<RemoteJobOptions> restartMoved(const RemoteJobOptions& options, uint64_t jobId) {
  cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
  std::optional<cluster::MigrationRequest> request = cluster::readMigration(redis, jobId);
  if (!request || request->state != "stopping") return std::nullopt;
  cluster::setMigrationState(redis, jobId, "done");
  if (const char* stats = std::getenv("SYNERGY_MIGRATION_STATS"); stats && std::strcmp(stats, "0")) {
    struct stat file;
    std::string path = options.checkpointDirectory + "/" + checkpoint::kCheckpointFileName;
    std::fprintf(stderr, "synergy-run: migration stats: job %llu: checkpoint of %lld bytes\n",
                 (unsigned long long)jobId,
                 stat(path.c_str(), &file) == 0 ? (long long)file.st_size : -1LL);
  }
  RemoteJobOptions moved = options;
  moved.resume = true;
  moved.resumedJob = jobId;
  moved.resumeSequence = 0;
  moved.placement = request->placement;
  moved.firstJob = options.firstJob ? options.firstJob : options.resume ? 0 : jobId;
  moved.checkpointHolders = holdersOf(options, jobId, 0);
  moved.backgroundMoves = options.backgroundMoves && !movesByItself(options);
  moved.movedAtMs = wallClockMs();
  moved.fragment = 0;
  moved.forcedMigration.reset();
  moved.consolidateAt = 0;
  std::fflush(stdout);
  std::fprintf(stderr, "synergy-run: note: job %llu stopped at a barrier control point to move %s; "
               "it goes on on %s\n",
               (unsigned long long)jobId, request->what.c_str(),
               cluster::formatHostCounts(request->placement).c_str());
  return moved;
}

// A job that ended with the move its client asked for still pending says
// so, with the last reason part 0 recorded for not taking it at a control
// point it applied at (an aborted move was noted by the job itself).
void noteMoveNotTaken(const RemoteJobOptions& options, uint64_t jobId) {
  try {
    cluster::RedisConnection redis(options.state, std::chrono::milliseconds(2000));
    std::optional<cluster::MigrationRequest> request = cluster::readMigration(redis, jobId);
    if (!request || request->state != "requested") return;
    std::string lastReason = request->reason.empty() ? "" : " (last " + request->reason + ")";
    std::fprintf(stderr,
                 "synergy-run: note: job %llu ended before its move of %s (from barrier control "
                 "point %llu on) was taken%s\n",
                 (unsigned long long)jobId, request->what.c_str(), (unsigned long long)request->at,
                 lastReason.c_str());
  } catch (const cluster::StateStoreError&) {
    // Only a note is lost; the job's status stands.
  }
}

// Runs the placed parts and returns the job's status: the first nonzero
// status a host reports is the job's, like mpirun's. The job ends once
// every part has reported its exit, which a host sends only after all the
// part's output, so that no part's last lines are lost; once one part has
// failed, the others get kPartsEndLimit to do so before leaving closes
// their connections, which kills them. A host lost before it reported ends
// the job at once with an error naming the host and ranks: one whose
// connection closes or resets, for whatever reason, at any point from its
// handshake on, and one that cannot be connected to or closes before the
// handshake without refusing it (HelloRefused).
int runPlacedJob(const std::string& token, const std::string& module,
                 const std::vector<PlacedPart>& parts, OutputJournal* journal) {
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<JobOutcome> outcome;
  std::optional<int> failedStatus;
  size_t exited = 0;
  std::map<const transport::Connection*, size_t> partOf;
  // Connections that closed after their handshake but before their part
  // was entered in partOf; each is taken out by the thread that opened it.
  std::set<const transport::Connection*> closedBeforeStart;
  // The transport's last "dropped connection to ADDRESS: why" line, for
  // the onClosed that follows it on the I/O thread.
  std::string lastDrop;
  std::vector<PendingOutput> pending(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    pending[i].part = uint32_t(i);
    pending[i].journal = journal;
  }
  // What a part's OutputMark and OutputHold may name.
  const uint64_t jobId = parts.front().request.jobId;
  uint32_t jobRanks = 0;
  for (uint32_t ranks : parts.front().request.partRanks) jobRanks += ranks;
  if (jobRanks == 0) jobRanks = parts.front().request.ranks;
  // A part whose JobExit arrived, delivered or held: its connection may
  // close after it.
  std::vector<bool> exitArrived(parts.size(), false);
  std::function<void(JobOutcome)> finish;
  // Each part's output and exit, in its order; a live move's target's held
  // until the moved rank's earlier lines from its source are out
  // (cluster/OutputNotes.h).
  cluster::OutputOrder order(parts.size(), [&](size_t index, transport::Frame&& frame) {
    if (frame.type == transport::FrameType::JobOutput) {
      writeWholeLines(pending[index], frame.payload[0], frame.payload.data() + 1,
                      frame.payload.size() - 1);
      return;
    }
    uint32_t status = 0;
    for (int i = 0; i < 4; ++i) status |= uint32_t(frame.payload[i]) << (8 * i);
    flushPartialLines(pending[index]);
    for (auto it = partOf.begin(); it != partOf.end(); ++it)
      if (it->second == index) {
        partOf.erase(it);
        break;
      }
    if ((status & 0xff) != 0 && !failedStatus) {
      failedStatus = int(status & 0xff);
      changed.notify_all();
    }
    if (++exited == parts.size()) finish({failedStatus.value_or(0), ""});
  });
  finish = [&](JobOutcome result) {
    if (!outcome) {
      outcome = std::move(result);
      order.releaseAll();
    }
    changed.notify_all();
  };
  transport::Transport transport(
      {.token = token,
       .onFrame =
           [&](transport::Connection& from, transport::Frame&& frame, std::string& reason) {
             std::lock_guard<std::mutex> lock(mutex);
             auto it = partOf.find(&from);
             if (it == partOf.end() || outcome) return true;
             size_t index = it->second;
             const cluster::HostRecord& host = parts[index].host;
             switch (frame.type) {
               case transport::FrameType::ModuleWanted:
                 sendModule(from, module);
                 return true;
               case transport::FrameType::JobOutput:
                 if (frame.payload.empty() || frame.payload[0] < 1 || frame.payload[0] > 2) {
                   reason = "JobOutput for an unknown stream";
                   return false;
                 }
                 order.output(index, std::move(frame));
                 return true;
               case transport::FrameType::JobExit:
                 if (frame.payload.size() != 4 || exitArrived[index]) {
                   reason = "JobExit without a 4-byte status, or a second one";
                   return false;
                 }
                 exitArrived[index] = true;
                 order.output(index, std::move(frame));
                 return true;
               case transport::FrameType::OutputMark: {
                 uint32_t rank = 0;
                 if (!cluster::decodeOutputMark(frame.payload, jobId, jobRanks, rank, reason))
                   return false;
                 order.mark(index, rank);
                 return true;
               }
               case transport::FrameType::OutputHold: {
                 uint32_t rank = 0, source = 0;
                 if (!cluster::decodeOutputHold(frame.payload, jobId, jobRanks,
                                                uint32_t(parts.size()), uint32_t(index), rank,
                                                source, reason))
                   return false;
                 order.hold(index, rank, source);
                 return true;
               }
               case transport::FrameType::JobRefused:
                 finish({2, "host " + host.id + " refused the job: " +
                                std::string(frame.payload.begin(), frame.payload.end())});
                 return true;
               default:
                 return false;
             }
           },
       .onClosed =
           [&](transport::Connection& connection) {
             std::lock_guard<std::mutex> lock(mutex);
             std::string why = droppedBecause(std::exchange(lastDrop, {}), connection);
             auto it = partOf.find(&connection);
             if (it == partOf.end()) {
               closedBeforeStart.insert(&connection);
               return;
             }
             // Its exit is in, held behind a live move's hold: nothing is lost.
             if (exitArrived[it->second]) return;
             order.lost(it->second);
             const PlacedPart& part = parts[it->second];
             finish({2,
                     "lost the connection to host " + part.host.id + " (" + part.rankText + ")" +
                         why,
                     part.host.id});
           },
       .log =
           [&](const std::string& line) {
             // Every line is a dropped connection, which onClosed or
             // connectionTo's error reports.
             std::lock_guard<std::mutex> lock(mutex);
             lastDrop = line;
           }});
  // Every host's connection handshake and job start run at the same time:
  // one connecting thread per further host, the first on this thread.
  std::vector<std::string> errors(parts.size());
  // A registered host that cannot be connected to is lost like one whose
  // connection drops.
  std::vector<bool> unreachable(parts.size(), false);
  auto startPart = [&](size_t i) {
    std::string address;
    uint16_t port = 0;
    const cluster::HostRecord& host = parts[i].host;
    if (!splitHostAddress(host.address, address, port)) {
      errors[i] = "host " + host.id + " has a malformed address '" + host.address + "'";
      return;
    }
    bool refused = false;
    std::shared_ptr<transport::Connection> connection =
        transport.connectionTo(address, port, errors[i], &refused);
    if (!connection) {
      // A host that answered and refused the handshake (a wrong token) is
      // there; one that cannot be connected to, or closes or resets the
      // connection before the handshake, is not.
      unreachable[i] = !refused;
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (outcome) return;
      if (closedBeforeStart.erase(connection.get())) {
        errors[i] = "lost the connection to host " + host.id + " (" + parts[i].rankText +
                    ") before its part started";
        unreachable[i] = true;
        return;
      }
      partOf[connection.get()] = i;
    }
    connection->send(transport::FrameType::RunJob, cluster::encodeRunJob(parts[i].request));
  };
  {
    std::vector<std::thread> connecting;
    for (size_t i = 1; i < parts.size(); ++i) connecting.emplace_back(startPart, i);
    startPart(0);
    for (std::thread& thread : connecting) thread.join();
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (unreachable[i]) throw HostLost(errors[i], parts[i].host.id);
    if (!errors[i].empty()) throw RemoteJobError(errors[i]);
  }
  JobOutcome result;
  {
    std::unique_lock<std::mutex> lock(mutex);
    // A hold no mark ends is given up after a while (OutputOrder::expire).
    while (!outcome && !failedStatus) {
      changed.wait_for(lock, std::chrono::milliseconds(500));
      for (const std::string& note : order.expire(std::chrono::steady_clock::now()))
        std::fprintf(stderr,
                     "synergy-run: note: %s; printed without them, its lines may be out of "
                     "order\n",
                     note.c_str());
    }
    if (!changed.wait_for(lock, kPartsEndLimit, [&] { return outcome.has_value(); }))
      outcome = JobOutcome{*failedStatus, ""};
    // Whatever is still held is printed, as it would have been without holds.
    order.releaseAll();
    result = *outcome;
  }
  // Leaving closes every connection, which ends the parts still running.
  if (!result.lostHost.empty()) throw HostLost(result.error, result.lostHost);
  if (!result.error.empty()) throw RemoteJobError(result.error);
  return result.status;
}

}  // namespace

int runRemoteJob(const RemoteJobOptions& options) {
  std::optional<uint64_t> jobId;
  std::optional<cluster::ClusterState> state;
  try {
    std::unique_ptr<PlacementPolicy> policy = createPlacementPolicy(options.policy);
    if (!policy) throw RemoteJobError("unknown placement policy '" + options.policy + "'");
    std::string token, error;
    if (!transport::readClusterToken(options.tokenFile, token, error)) throw RemoteJobError(error);
    std::optional<std::string> module = util::readFile(options.program);
    if (!module) throw RemoteJobError("cannot read " + options.program);
    if (module->empty() || module->size() > transport::kMaxModuleBytes)
      throw RemoteJobError(options.program + " is empty or larger than " +
                           std::to_string(transport::kMaxModuleBytes >> 20) +
                           " MiB, the most a module may be");
    cluster::RunJobRequest request;
    util::Sha256 hasher;
    hasher.update(*module);
    request.moduleHash = hasher.digest();
    request.ranks = options.ranks;
    request.tagOutput = options.tagOutput;
    request.arguments = options.arguments;
    request.environment = options.environment;
    for (const sandbox::Grant& grant : options.grants)
      request.grants.push_back({grant.hostPath, grant.guestPath, grant.readOnly});
    if (!request.grants.empty()) {
      char directory[PATH_MAX];
      if (!getcwd(directory, sizeof directory))
        throw RemoteJobError("cannot read the working directory for --dir");
      request.workingDirectory = directory;
    }
    std::string app = cluster::hashHex(request.moduleHash);
    std::string name = options.program.substr(options.program.rfind('/') + 1);

    state.emplace(options.state);
    jobId = state->submitJob(name.substr(0, cluster::kMaxJobNameBytes), app, options.ranks);
    request.jobId = *jobId;
    request.checkpointDirectory = options.checkpointDirectory;
    request.checkpointProgram = options.checkpointProgram;
    request.checkpointIntervalMicroseconds = options.checkpointIntervalMicroseconds;
    request.resume = options.resume;
    request.resumeSequence = options.resume ? options.resumeSequence : 0;
    std::optional<OutputJournal> journal;
    if (!options.checkpointDirectory.empty() &&
        !journal.emplace().open(options.checkpointDirectory, *jobId, error))
      throw RemoteJobError(error);
    std::vector<PlacedPart> parts = placeJob(*state, *policy, request, app, options);
    if (options.forcedMigration || options.consolidateAt)
      askForMigration(*state, options, *jobId, parts);
    if (options.backgroundMoves && !movesByItself(options) && !options.checkpointDirectory.empty())
      offerToScheduler(options, *jobId);
    // From here each host frees its slots when its part ends.
    try {
      int status = runPlacedJob(token, *module, parts, journal ? &*journal : nullptr);
      if (status != cluster::kMigratedExitStatus || options.checkpointDirectory.empty()) {
        if (options.forcedMigration || options.consolidateAt) noteMoveNotTaken(options, *jobId);
        if (status == 0) {
          removeCheckpointCopies(token, options, {*jobId, options.resumedJob});
          forgetCheckpointHolders(options, {*jobId, options.resumedJob});
        }
        return status;
      }
      std::optional<RemoteJobOptions> moved = restartMoved(options, *jobId);
      if (!moved) {
        if (options.forcedMigration || options.consolidateAt) noteMoveNotTaken(options, *jobId);
        if (status == 0) {
          removeCheckpointCopies(token, options, {*jobId, options.resumedJob});
          forgetCheckpointHolders(options, {*jobId, options.resumedJob});
        }
        return status;
      }
      journal.reset();
      state->finishJob(*jobId);
      state.reset();
      return runRemoteJob(*moved);
    } catch (const HostLost& lost) {
      if (options.checkpointDirectory.empty()) throw;
      journal.reset();
      std::optional<RemoteJobOptions> restart = restartFromCheckpoint(*state, options, *jobId, lost);
      if (!restart) throw;
      if (restart->resumedJob == *jobId) forgetCheckpointHolders(options, {options.resumedJob});
      state->finishJob(*jobId);
      state.reset();
      return runRemoteJob(*restart);
    }
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "synergy-run: error: %s\n", e.what());
    if (state && jobId) {
      try {
        state->finishJob(*jobId);
      } catch (const cluster::StateStoreError&) {
        // The store is what failed; there is nothing left to free.
      }
    }
    return 2;
  }
}

int resumeRemoteJob(RemoteJobOptions options, const std::string& directory) {
  std::string error;
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "synergy-run: error: %s\n", message.c_str());
    return 2;
  };
  std::optional<checkpoint::CheckpointImage> image =
      checkpoint::readResumableCheckpoint(directory, {}, error);
  if (!image) return fail(error);
  if (image->job.partOutputs.empty())
    return fail("cannot resume from " + directory + "/" + checkpoint::kCheckpointFileName +
                ": it is a checkpoint of a job on one host (resume it without --cluster)");
  options.program = image->job.program;
  options.arguments = image->job.args;
  options.environment = image->job.env;
  // By the absolute paths the hosts resolved them to: the same directories
  // from any working directory.
  options.grants = image->job.grants;
  options.ranks = unsigned(image->ranks.size());
  options.resume = true;
  options.checkpointProgram = image->job.program;
  options.checkpointDirectory = directory;
  options.resumedJob = image->job.partOutputs.front().jobId;
  options.resumeSequence = image->sequence;
  options.checkpointHolders = holdersOf(options, options.resumedJob, image->sequence);
  if (!cutStdoutToCheckpoint(directory, image->job.partOutputs, error))
    return fail("cannot resume from " + directory + "/" + checkpoint::kCheckpointFileName + ": " +
                error);
  image.reset();
  return runRemoteJob(options);
}

}  // namespace synergy::scheduler

//===- JobHost.cpp - Runs jobs that clients place on this host ------------===//
//
// This file implements JobHost.h. Frames arrive on the transport's I/O
// thread; each running job has its own thread that forwards the child's
// output and reaps it. The table of jobs by connection is shared between
// them under one mutex. Children are started with posix_spawn (no code runs
// between fork and exec in this multithreaded process), with stdin from
// /dev/null and in a new process group so that killing a job kills
// everything it started. A child inherits no descriptor but its stdio and
// its grants: one that kept the daemon's listening socket or a client's
// connection open would hide the daemon's death from the client and the
// other hosts while the child lives. The spare (JobWorker.h) is started
// the same way, with the socket it reads its command line from on stdin
// instead, by a thread of its own that lives as long as the host (a spare
// dies with the thread that started it). Once a job has taken the spare,
// that thread starts the next one only when the job ends or
// kSpareRestartDelay later: loading a new synergy-run costs as much CPU as
// the job's own start, and on a busy host the two would share it.
//
//===----------------------------------------------------------------------===//
#include "cluster/JobHost.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

#include "checkpoint/CheckpointCopy.h"
#include "checkpoint/CheckpointFile.h"
#include "checkpoint/DurableReplace.h"
#include "checkpoint/PartFileChunks.h"
#include "cluster/CheckpointHolders.h"
#include "cluster/ClusterState.h"
#include "cluster/HostDeathHook.h"
#include "cluster/JobGrants.h"
#include "cluster/JobMessages.h"
#include "cluster/JobPart.h"
#include "cluster/JobWorker.h"
#include "cluster/ModuleAssembly.h"
#include "cluster/OutputNotes.h"
#include "transport/FrameCodec.h"
#include "util/FileIO.h"
#include "util/LittleEndian.h"

extern char** environ;

namespace synergy::cluster {

namespace {

enum class JobPhase { WaitingForModule, Running };

// How long the next spare waits after a job took the last one, unless the
// job ends first: longer than a job's start (loading its module and
// connecting to the other hosts) takes on a loaded host.
constexpr auto kSpareRestartDelay = std::chrono::milliseconds(300);

// A started synergy-run: its process (group) id, and the daemon's ends of
// its stdout, stderr, its output notes socket (OutputNotes.h) and, for a
// spare, the socket on its stdin.
struct ChildProcess {
  pid_t pid = 0;
  int control = -1;
  int out = -1;
  int err = -1;
  int notes = -1;
};

// SYNERGY_TEST_OUTPUT_DELAY=P:MS in the daemon's environment (a hidden test
// hook of issue 22's live move): the output of part P of a spread job run
// here reaches the client MS milliseconds after the daemon read it, as
// from a busy or distant host (cluster_test.py live-move-output). 0: none.
std::chrono::milliseconds testOutputDelay(const RunJobRequest& request) {
  const char* hook = std::getenv("SYNERGY_TEST_OUTPUT_DELAY");
  if (!hook || request.partRanks.empty()) return {};
  unsigned part = 0, ms = 0;
  char extra = 0;
  if (std::sscanf(hook, "%u:%u%c", &part, &ms, &extra) != 2 || part != request.partIndex ||
      ms > 60000)
    return {};
  return std::chrono::milliseconds(ms);
}

// Sends a job's frames to its client, each `delay` after it was given
// (the test hook above), in the order given.
class OutputSender {
 public:
  OutputSender(transport::Connection& client, std::chrono::milliseconds delay)
      : client_(client), delay_(delay) {
    if (delay_.count() > 0) thread_ = std::thread([this] { sendWhenDue(); });
  }
  ~OutputSender() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      ending_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void send(transport::FrameType type, std::vector<uint8_t> payload) {
    if (!thread_.joinable()) {
      client_.send(type, std::move(payload));
      return;
    }
    std::lock_guard<std::mutex> guard(mutex_);
    queue_.push_back({std::chrono::steady_clock::now() + delay_, type, std::move(payload)});
    wake_.notify_all();
  }

 private:
  struct Due {
    std::chrono::steady_clock::time_point at;
    transport::FrameType type;
    std::vector<uint8_t> payload;
  };
  void sendWhenDue() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return ending_ || !queue_.empty(); });
      if (queue_.empty()) return;
      wake_.wait_until(lock, queue_.front().at);
      if (std::chrono::steady_clock::now() < queue_.front().at) continue;
      Due due = std::move(queue_.front());
      queue_.pop_front();
      client_.send(due.type, std::move(due.payload));
    }
  }
  transport::Connection& client_;
  const std::chrono::milliseconds delay_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Due> queue_;
  bool ending_ = false;
  std::thread thread_;
};

struct HostedJob {
  RunJobRequest request;
  // The client's checkpoint directory, before allowCheckpointDirectory made
  // it this host's own.
  std::string checkpointName;
  std::shared_ptr<transport::Connection> client;
  JobPhase phase = JobPhase::WaitingForModule;
  pid_t processGroup = 0;
  std::string partFile;  // for a part of a job spread over hosts
  OpenedGrants grants;   // held from the RunJob until the child has them
  ModuleAssembly module;  // while its chunks come in
};

uint64_t littleEndian64(const uint8_t* bytes) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= uint64_t(bytes[i]) << (8 * i);
  return value;
}

std::vector<uint8_t> bytesOf(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// Exit status of a waited-for child, as a shell reports it.
int exitStatusOf(int waitStatus) {
  if (WIFEXITED(waitStatus)) return WEXITSTATUS(waitStatus);
  if (WIFSIGNALED(waitStatus)) return 128 + WTERMSIG(waitStatus);
  return 2;
}

}  // namespace

class JobHost::Impl {
 public:
  explicit Impl(JobHostConfig config) : config_(std::move(config)) {
    util::makeDirectories(config_.moduleDirectory);
    spareStarter_ = std::thread([this] { keepSpare(); });
  }

  ~Impl() {
    std::unique_lock<std::mutex> lock(mutex_);
    refusing_ = true;
    stopping_ = true;
    spareWanted_.notify_all();
    lock.unlock();
    spareStarter_.join();
    lock.lock();
    discard(spare_);
    for (auto& [connection, job] : jobs_)
      if (job->processGroup > 0) kill(-job->processGroup, SIGKILL);
    idle_.wait(lock, [&] { return runningThreads_ == 0; });
  }

  bool handleFrame(transport::Connection& from, transport::Frame&& frame, std::string& reason) {
    switch (frame.type) {
      case transport::FrameType::RunJob:
        return onRunJob(from, frame, reason);
      case transport::FrameType::ModuleHead:
      case transport::FrameType::ModuleChunk:
        return onModuleFrame(from, frame, reason);
      case transport::FrameType::CheckpointMirror:
        return onCheckpointMirror(from, frame.payload, reason);
      case transport::FrameType::CheckpointForget:
        return onCheckpointForget(from, frame.payload, reason);
      default:
        return false;
    }
  }

  void connectionClosed(transport::Connection& connection) {
    {
      std::lock_guard<std::mutex> guard(mirrorMutex_);
      mirrors_.erase(&connection);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = jobs_.find(&connection);
    if (it == jobs_.end()) return;
    if (it->second->phase == JobPhase::Running) {
      log("job " + std::to_string(it->second->request.jobId) +
          ": client disconnected; killing the job");
      if (it->second->processGroup > 0) kill(-it->second->processGroup, SIGKILL);
      return;
    }
    // Never started: only its slots need freeing.
    uint64_t jobId = it->second->request.jobId;
    jobs_.erase(it);
    if (config_.onJobFinished) config_.onJobFinished(jobId);
  }

  void refuseNewJobs() {
    std::lock_guard<std::mutex> lock(mutex_);
    refusing_ = true;
    discard(spare_);
    spareWanted_.notify_all();
  }

  void waitForJobs() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return runningThreads_ == 0; });
  }

 private:
  void log(const std::string& line) {
    if (config_.log) config_.log(line);
  }

  // The copy of the checkpoints of a job that runs as one part on another
  // host (CheckpointMirror, CheckpointAgreement.h), one job a connection.
  struct MirrorCopy {
    uint64_t jobId = 0;
    std::string name;       // the client's directory, as the first frame gave it
    std::string directory;  // its canonical path below the checkpoint root
    uint64_t sequence = 0;  // the checkpoint coming, from its first chunk
    checkpoint::PartFileAssembly file;
  };

  // Every CheckpointMirror is hostile: a malformed frame, a job the cluster
  // state does not list as running, a directory that is not absolute or
  // not confined below this host's checkpoint root (as a job's D is here),
  // or a chunk that breaks PartFileChunks.h's rules drops the connection
  // with the reason in the log; a whole file that fails its checks
  // (storeCheckpointCopy) is answered with 0, logged, and not written.
  bool onCheckpointMirror(transport::Connection& from, const std::vector<uint8_t>& payload,
                          std::string& reason) {
    constexpr size_t kHead = transport::kCheckpointMirrorHeadBytes;
    if (payload.size() < kHead + transport::kCheckpointPartDataHeadBytes) {
      reason = "malformed CheckpointMirror (" + std::to_string(payload.size()) + " bytes)";
      return false;
    }
    uint64_t jobId = util::readLittleEndian(payload.data(), 8);
    uint64_t nameBytes = util::readLittleEndian(payload.data() + 8, 4);
    if (jobId == 0 || nameBytes == 0 || nameBytes > transport::kMaxCheckpointMirrorDirectoryBytes ||
        payload.size() < kHead + nameBytes + transport::kCheckpointPartDataHeadBytes) {
      reason = "malformed CheckpointMirror (job id, directory length)";
      return false;
    }
    std::string job = "CheckpointMirror for job " + std::to_string(jobId) + ": ";
    std::string name(payload.begin() + long(kHead), payload.begin() + long(kHead + nameBytes));
    std::vector<uint8_t> chunk(payload.begin() + long(kHead + nameBytes), payload.end());
    if (config_.checkpointRoot.empty()) {
      reason = job + "this host has no --checkpoint-root";
      return false;
    }
    std::lock_guard<std::mutex> guard(mirrorMutex_);
    auto found = mirrors_.find(&from);
    if (found == mirrors_.end()) {
      if (!jobIsRunning(jobId, reason)) {
        reason = job + reason;
        return false;
      }
      RunJobRequest request;
      request.checkpointDirectory = name;
      if (!allowCheckpointDirectory(request, {}, config_.checkpointRoot, reason)) {
        reason = job + reason;
        return false;
      }
      found = mirrors_.emplace(&from, MirrorCopy{jobId, name, request.checkpointDirectory, 0, {}})
                  .first;
    } else if (found->second.jobId != jobId || found->second.name != name) {
      reason = job + "another job or directory than the connection's first frame named";
      return false;
    }
    MirrorCopy& mirror = found->second;
    if (util::readLittleEndian(chunk.data() + 8, 8) == 0)  // a file's first chunk
      mirror.sequence = util::readLittleEndian(chunk.data(), 8);
    // A job on one host has at most that host's slots of ranks.
    if (!mirror.file.take(chunk, mirror.sequence, kMaxSlotsPerHost, reason)) {
      reason = job + reason;
      return false;
    }
    std::optional<std::string> whole = mirror.file.takeWhole(mirror.sequence);
    if (!whole) return true;
    std::string error;
    bool written = checkpoint::storeCheckpointCopy(mirror.directory, *whole, mirror.sequence, error);
    if (!written)
      log("job " + std::to_string(jobId) + ": the mirrored copy of checkpoint " +
          std::to_string(mirror.sequence) + " is not kept: " + error);
    std::vector<uint8_t> ack;
    util::appendLittleEndian(ack, mirror.sequence, 8);
    ack.push_back(written ? 1 : 0);
    from.send(transport::FrameType::CheckpointMirror, std::move(ack));
    return true;
  }

  // A client's request to remove this host's copy of its ended job's
  // checkpoint. Hostile like CheckpointMirror: a malformed frame, a host
  // without a checkpoint root, a job whose record does not name this host
  // as a holder (or cannot be read), or a directory that is not absolute
  // or not confined below the root drops the connection with the reason in
  // the log. Otherwise the copy and its spare go (what is not there is not
  // counted), and the answer says how many files went.
  bool onCheckpointForget(transport::Connection& from, const std::vector<uint8_t>& payload,
                          std::string& reason) {
    constexpr size_t kHead = transport::kCheckpointForgetHeadBytes;
    if (payload.size() < kHead) {
      reason = "malformed CheckpointForget (" + std::to_string(payload.size()) + " bytes)";
      return false;
    }
    uint64_t jobId = util::readLittleEndian(payload.data(), 8);
    uint64_t nameBytes = util::readLittleEndian(payload.data() + 8, 4);
    if (jobId == 0 || nameBytes == 0 || payload.size() != kHead + nameBytes) {
      reason = "malformed CheckpointForget (job id, directory length)";
      return false;
    }
    std::string job = "CheckpointForget for job " + std::to_string(jobId) + ": ";
    if (config_.checkpointRoot.empty()) {
      reason = job + "this host has no --checkpoint-root";
      return false;
    }
    std::string host = config_.hostId ? config_.hostId() : std::string();
    try {
      constexpr auto kStateTimeout = std::chrono::milliseconds(2000);
      RedisConnection redis(config_.state, kStateTimeout);
      std::optional<CheckpointHolders> holders = readCheckpointHolders(redis, jobId);
      if (!holders || std::find(holders->hostIds.begin(), holders->hostIds.end(), host) ==
                          holders->hostIds.end()) {
        reason = job + "its checkpoint record does not name this host";
        return false;
      }
    } catch (const StateStoreError& e) {
      reason = job + "cannot read its checkpoint record: " + e.what();
      return false;
    }
    RunJobRequest request;
    request.checkpointDirectory.assign(payload.begin() + long(kHead), payload.end());
    std::string name = request.checkpointDirectory;
    if (!allowCheckpointDirectory(request, {}, config_.checkpointRoot, reason)) {
      reason = job + reason;
      return false;
    }
    uint8_t removed = 0;
    for (const std::string& path :
         {request.checkpointDirectory + "/" + checkpoint::kCheckpointFileName,
          checkpoint::spareFilePath(request.checkpointDirectory, checkpoint::kCheckpointFileName)})
      if (unlink(path.c_str()) == 0) ++removed;
    log("job " + std::to_string(jobId) + ": removed " + std::to_string(removed) +
        " checkpoint files of " + name + " (the job ended)");
    std::vector<uint8_t> answer;
    util::appendLittleEndian(answer, jobId, 8);
    answer.push_back(removed);
    from.send(transport::FrameType::CheckpointForget, std::move(answer));
    return true;
  }

  // Whether the cluster state lists job `jobId` as running; false with
  // `reason` otherwise.
  bool jobIsRunning(uint64_t jobId, std::string& reason) {
    constexpr auto kStateTimeout = std::chrono::milliseconds(2000);
    try {
      RedisConnection redis(config_.state, kStateTimeout);
      std::vector<std::string> fields =
          replyStrings(*redis.command({"HGETALL", "synergy:job:" + std::to_string(jobId)}));
      for (size_t i = 0; i + 1 < fields.size(); i += 2)
        if (fields[i] == "state" && fields[i + 1] == "running") return true;
      reason = "no such job is running";
    } catch (const StateStoreError& e) {
      reason = std::string("cannot read the cluster state: ") + e.what();
    }
    return false;
  }

  std::string modulePath(const RunJobRequest& request) const {
    return config_.moduleDirectory + "/" + hashHex(request.moduleHash) + ".wasm";
  }

  bool onRunJob(transport::Connection& from, const transport::Frame& frame, std::string& reason) {
    dieIfTestLosesHostAt("run-job");
    auto job = std::make_shared<HostedJob>();
    if (!decodeRunJob(frame.payload, job->request, reason)) return false;
    job->client = from.shared_from_this();
    std::lock_guard<std::mutex> lock(mutex_);
    if (refusing_) {
      from.send(transport::FrameType::JobRefused, bytesOf("the host is shutting down"));
      if (config_.onJobFinished) config_.onJobFinished(job->request.jobId);
      return true;
    }
    if (jobs_.count(&from)) {
      reason = "a second RunJob on one connection";
      return false;
    }
    std::string refusal;
    job->checkpointName = job->request.checkpointDirectory;
    if (!openJobGrants(job->request, config_.allowedDirectories, job->grants, refusal) ||
        !allowCheckpointDirectory(job->request, config_.allowedDirectories, config_.checkpointRoot,
                                  refusal)) {
      log("job " + std::to_string(job->request.jobId) + ": refused: " + refusal);
      from.send(transport::FrameType::JobRefused, bytesOf(refusal));
      if (config_.onJobFinished) config_.onJobFinished(job->request.jobId);
      return true;
    }
    jobs_[&from] = job;
    if (access(modulePath(job->request).c_str(), R_OK) == 0) {
      startJob(job);
    } else {
      from.send(transport::FrameType::ModuleWanted, {});
    }
    return true;
  }

  // A ModuleHead or ModuleChunk from the client of a job waiting for its
  // module: the module is stored and the job started once its last chunk
  // has come and the bytes match the job's hash.
  bool onModuleFrame(transport::Connection& from, const transport::Frame& frame,
                     std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = jobs_.find(&from);
    if (it == jobs_.end() || it->second->phase != JobPhase::WaitingForModule) {
      reason = std::string(transport::frameTypeName(frame.type)) + " that no RunJob asked for";
      return false;
    }
    std::shared_ptr<HostedJob> job = it->second;
    const std::vector<uint8_t>& payload = frame.payload;
    if (frame.type == transport::FrameType::ModuleHead) {
      dieIfTestLosesHostAt("module");
      if (payload.size() != transport::kModuleHeadBytes) {
        reason = "ModuleHead of the wrong size";
        return false;
      }
      return job->module.begin(littleEndian64(payload.data()), reason);
    }
    if (payload.size() < transport::kModuleChunkHeaderBytes) {
      reason = "ModuleChunk shorter than its header";
      return false;
    }
    if (!job->module.addChunk(littleEndian64(payload.data()),
                              payload.data() + transport::kModuleChunkHeaderBytes,
                              payload.size() - transport::kModuleChunkHeaderBytes, reason))
      return false;
    if (!job->module.complete()) return true;
    std::string module;
    if (!job->module.finish(job->request.moduleHash, module, reason)) return false;
    std::string path = modulePath(job->request);
    if (!util::writeFileAtomically(path, module)) {
      from.send(transport::FrameType::JobRefused, bytesOf("cannot store the module on the host"));
      jobs_.erase(it);
      if (config_.onJobFinished) config_.onJobFinished(job->request.jobId);
      return true;
    }
    log("stored module " + hashHex(job->request.moduleHash));
    startJob(job);
    return true;
  }

  // Starts the child and its forwarding thread. Caller holds mutex_.
  void startJob(const std::shared_ptr<HostedJob>& job) {
    const RunJobRequest& request = job->request;
    std::vector<std::string> argv{config_.runProgram, "-np", std::to_string(request.ranks)};
    if (request.tagOutput) argv.push_back("--tag-output");
    if (!request.partRanks.empty()) {
      JobPart part{request.jobId,       request.partIndex, request.partRanks,
                   config_.hostAddress, config_.state,     config_.tokenFile,
                   request.rankParts};
      job->partFile = config_.moduleDirectory + "/job-" + std::to_string(request.jobId) + "-part-" +
                      std::to_string(request.partIndex);
      if (!util::writeFileAtomically(job->partFile, formatJobPart(part)))
        return failToStart(job, "cannot write the job part file");
      argv.push_back("--cluster-part");
      argv.push_back(job->partFile);
    }
    if (!request.checkpointDirectory.empty()) {
      // Whole microseconds, which the option reads back exactly.
      char interval[32];
      std::snprintf(interval, sizeof interval, "%llu.%06llu",
                    (unsigned long long)(request.checkpointIntervalMicroseconds / 1000000),
                    (unsigned long long)(request.checkpointIntervalMicroseconds % 1000000));
      argv.insert(argv.end(), {"--checkpoint-every", interval, "--checkpoint-dir",
                               request.checkpointDirectory, "--checkpoint-program",
                               request.checkpointProgram});
      if (request.resume) argv.insert(argv.end(), {"--resume", request.checkpointDirectory});
      if (request.resume && request.resumeSequence != 0)
        argv.insert(argv.end(), {"--resume-sequence", std::to_string(request.resumeSequence)});
      if (!config_.checkpointRoot.empty())
        argv.insert(argv.end(), {"--checkpoint-host-local", "--checkpoint-mirror-name",
                                 job->checkpointName});
    }
    for (const std::string& entry : request.environment) {
      argv.push_back("--env");
      argv.push_back(entry);
    }
    argv.push_back("--");
    argv.push_back(modulePath(request));
    argv.insert(argv.end(), request.arguments.begin() + 1, request.arguments.end());

    // A job without grants runs in the spare when there is one; granted
    // directories travel as descriptors, which only a new process gets.
    ChildProcess child;
    bool usedSpare = false;
    if (job->grants.directories.empty() && spare_.pid > 0) {
      std::string message =
          encodeWorkerCommandLine(std::vector<std::string>(argv.begin() + 1, argv.end()));
      ChildProcess spare = std::exchange(spare_, ChildProcess());
      usedSpare = send(spare.control, message.data(), message.size(),
                       MSG_DONTWAIT | MSG_NOSIGNAL) == ssize_t(message.size());
      close(spare.control);
      spare.control = -1;
      if (usedSpare) {
        child = spare;
      } else {
        discard(spare);
      }
    }
    std::string error;
    if (!usedSpare && !spawnRunProgram(argv, job->grants, /*control=*/false, child, error))
      return failToStart(job, error);
    job->grants = OpenedGrants();
    job->phase = JobPhase::Running;
    job->processGroup = child.pid;
    ++runningThreads_;
    log("job " + std::to_string(request.jobId) + ": running " + std::to_string(request.ranks) +
        " ranks of module " + hashHex(request.moduleHash) +
        (usedSpare ? " in a pre-started process" : ""));
    dieIfTestLosesHostAt("part-started");
    std::thread([this, job, pid = child.pid, out = child.out, err = child.err,
                 notes = child.notes] {
      {
        OutputSender sender(*job->client, testOutputDelay(job->request));
        forwardOutput(sender, out, err, notes, job->request.jobId);
      }
      int waitStatus = 0;
      while (waitpid(pid, &waitStatus, 0) < 0 && errno == EINTR) {
      }
      // Forget the job before the client learns it ended, so that its
      // disconnect cannot signal a process group that no longer exists.
      {
        std::lock_guard<std::mutex> lock(mutex_);
        job->processGroup = 0;
        for (auto it = jobs_.begin(); it != jobs_.end(); ++it) {
          if (it->second == job) {
            jobs_.erase(it);
            break;
          }
        }
      }
      if (!job->partFile.empty()) unlink(job->partFile.c_str());
      startDueSpareNow();
      int status = exitStatusOf(waitStatus);
      log("job " + std::to_string(job->request.jobId) + ": exited with status " +
          std::to_string(status));
      // Slots go back before the client hears the status, so that a client
      // that has its answer (and whoever it tells) finds them free.
      if (config_.onJobFinished) config_.onJobFinished(job->request.jobId);
      std::vector<uint8_t> payload(4);
      for (int i = 0; i < 4; ++i) payload[i] = uint8_t(uint32_t(status) >> (8 * i));
      job->client->send(transport::FrameType::JobExit, std::move(payload));
      std::lock_guard<std::mutex> lock(mutex_);
      --runningThreads_;
      idle_.notify_all();
    }).detach();
    if (spare_.pid == 0 && !nextSpareAt_) {
      nextSpareAt_ = std::chrono::steady_clock::now() + kSpareRestartDelay;
      spareWanted_.notify_all();
    }
  }

  // A job has ended: a spare due later starts now, before the client
  // hears of the end (and may send the next job). Caller does not hold
  // mutex_.
  void startDueSpareNow() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!nextSpareAt_) return;
    nextSpareAt_ = std::min(*nextSpareAt_, std::chrono::steady_clock::now());
    spareWanted_.notify_all();
    spareWanted_.wait(lock, [&] { return refusing_ || !nextSpareAt_; });
  }

  // The spare starter's thread: starts a spare (JobWorker.h) for the next
  // job without grants when nextSpareAt_ comes, while the host takes new
  // jobs. One that cannot be started is tried again when the next job
  // starts, so that a missing synergy-run is not logged in a loop. The
  // thread lives until the host is destroyed, not only until it refuses new
  // jobs: every job process it started dies with it (PR_SET_PDEATHSIG follows
  // the thread that forked), and a draining host lets its jobs finish.
  void keepSpare() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      if (refusing_ || spare_.pid > 0 || !nextSpareAt_) {
        spareWanted_.wait(lock);
        continue;
      }
      if (std::chrono::steady_clock::now() < *nextSpareAt_) {
        spareWanted_.wait_until(lock, *nextSpareAt_);
        continue;
      }
      lock.unlock();
      std::string error;
      ChildProcess spare;
      bool started = spawnRunProgram({config_.runProgram, kJobWorkerOption}, OpenedGrants(),
                                     /*control=*/true, spare, error);
      lock.lock();
      nextSpareAt_.reset();
      spareWanted_.notify_all();
      if (!started) {
        log("cannot start a spare job process: " + error);
        continue;
      }
      spare_ = spare;
      if (refusing_) discard(spare_);
    }
  }

  // Kills a spare that will not run a job and reaps it.
  static void discard(ChildProcess& spare) {
    if (spare.pid <= 0) return;
    kill(-spare.pid, SIGKILL);
    while (waitpid(spare.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    for (int fd : {spare.control, spare.out, spare.err, spare.notes})
      if (fd >= 0) close(fd);
    spare = ChildProcess();
  }

  // Starts `argv` in a new process group, stdout and stderr on pipes whose
  // read ends it returns in `child`, the granted directories above every
  // other descriptor it hands on (so that no dup2 overwrites another's
  // source) and in the grants' working directory. Stdin is /dev/null, or
  // with `control` a socket whose other end `child.control` is. After the
  // grants, a socket for the child's output notes (OutputNotes.h), whose
  // number kOutputNotesEnv gives it and whose other end `child.notes` is.
  static bool spawnRunProgram(std::vector<std::string> argv, const OpenedGrants& grants,
                              bool control, ChildProcess& child, std::string& error) {
    int outPipe[2], errPipe[2], controlPair[2] = {-1, -1};
    if (pipe2(outPipe, O_CLOEXEC) != 0) {
      error = "cannot create a pipe";
      return false;
    }
    if (pipe2(errPipe, O_CLOEXEC) != 0) {
      close(outPipe[0]);
      close(outPipe[1]);
      error = "cannot create a pipe";
      return false;
    }
    if (control && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, controlPair) != 0) {
      for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1]}) close(fd);
      error = "cannot create a socket pair";
      return false;
    }
    int notesPair[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, notesPair) != 0) {
      for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1], controlPair[0],
                     controlPair[1]})
        if (fd >= 0) close(fd);
      error = "cannot create a socket pair";
      return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // First, while the working directory's descriptor is still where it
    // is: the moves below may reuse its number, and the closing ends it.
    if (grants.workingDirectory.valid())
      posix_spawn_file_actions_addfchdir_np(&actions, grants.workingDirectory.get());
    if (control)
      posix_spawn_file_actions_adddup2(&actions, controlPair[1], STDIN_FILENO);
    else
      posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
    // The grants go first above every descriptor they or the pipes have,
    // then down to 3, 4, ...; everything above them is closed.
    // The notes socket goes with them, after the last.
    int aboveAll = std::max({errPipe[1], outPipe[1], notesPair[1]});
    for (const sandbox::UniqueFd& directory : grants.directories)
      aboveAll = std::max(aboveAll, directory.get());
    std::vector<std::string> grantArguments;
    const size_t grantCount = grants.directories.size();
    for (size_t i = 0; i <= grantCount; ++i)
      posix_spawn_file_actions_adddup2(
          &actions, i < grantCount ? grants.directories[i].get() : notesPair[1],
          aboveAll + 1 + int(i));
    for (size_t i = 0; i <= grantCount; ++i) {
      int childFd = STDERR_FILENO + 1 + int(i);
      posix_spawn_file_actions_adddup2(&actions, aboveAll + 1 + int(i), childFd);
      if (i == grantCount) break;
      grantArguments.push_back("--dir");
      grantArguments.push_back(grants.specFor(i, childFd));
    }
    const int notesFd = STDERR_FILENO + 1 + int(grantCount);
    posix_spawn_file_actions_addclosefrom_np(&actions, notesFd + 1);
    std::vector<std::string> environment;
    std::string notesPrefix = std::string(kOutputNotesEnv) + "=";
    for (char** entry = environ; *entry; ++entry)
      if (std::strncmp(*entry, notesPrefix.c_str(), notesPrefix.size()) != 0)
        environment.push_back(*entry);
    environment.push_back(notesPrefix + std::to_string(notesFd));
    std::vector<char*> environmentPointers;
    for (std::string& entry : environment) environmentPointers.push_back(entry.data());
    environmentPointers.push_back(nullptr);
    argv.insert(std::find(argv.begin(), argv.end(), "--"), grantArguments.begin(),
                grantArguments.end());
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t noSignals;
    sigemptyset(&noSignals);
    posix_spawnattr_setsigmask(&attributes, &noSignals);
    std::vector<char*> pointers;
    for (std::string& argument : argv) pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    pid_t pid = 0;
    int spawnError = posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, pointers.data(),
                                 environmentPointers.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(outPipe[1]);
    close(errPipe[1]);
    close(notesPair[1]);
    if (control) close(controlPair[1]);
    if (spawnError != 0) {
      for (int fd : {outPipe[0], errPipe[0], controlPair[0], notesPair[0]})
        if (fd >= 0) close(fd);
      error = "cannot start " + argv[0] + ": " + std::strerror(spawnError);
      return false;
    }
    child = ChildProcess{pid, controlPair[0], outPipe[0], errPipe[0], notesPair[0]};
    return true;
  }

  void failToStart(const std::shared_ptr<HostedJob>& job, const std::string& why) {
    if (!job->partFile.empty()) unlink(job->partFile.c_str());
    job->client->send(transport::FrameType::JobRefused, bytesOf(why));
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it) {
      if (it->second == job) {
        jobs_.erase(it);
        break;
      }
    }
    if (config_.onJobFinished) config_.onJobFinished(job->request.jobId);
  }

  // Sends everything the child writes until both pipes close, and its
  // output notes (OutputNotes.h) in their place among the bytes: a mark
  // after every byte the child wrote before it (the pipes are drained
  // first), a hold before every byte it writes after the daemon answers it.
  static void forwardOutput(OutputSender& client, int out, int err, int notes, uint64_t jobId) {
    pollfd fds[3] = {{out, POLLIN, 0}, {err, POLLIN, 0}, {notes, POLLIN, 0}};
    for (int stream = 0; stream < 2; ++stream)
      fcntl(fds[stream].fd, F_SETFL, fcntl(fds[stream].fd, F_GETFL) | O_NONBLOCK);
    int open = 2;
    std::vector<uint8_t> buffer(transport::kMaxJobOutputChunkBytes);
    std::vector<uint8_t> noteBytes;
    // Reads one chunk of `stream` and sends it; false when there is none now.
    auto forward = [&](int stream) {
      if (fds[stream].fd < 0) return false;
      ssize_t got = read(fds[stream].fd, buffer.data(), buffer.size());
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) return errno == EINTR;
      if (got <= 0) {
        close(fds[stream].fd);
        fds[stream].fd = -1;
        --open;
        return false;
      }
      std::vector<uint8_t> payload;
      payload.reserve(size_t(got) + 1);
      payload.push_back(uint8_t(stream + 1));
      payload.insert(payload.end(), buffer.begin(), buffer.begin() + got);
      client.send(transport::FrameType::JobOutput, std::move(payload));
      return true;
    };
    auto stopNotes = [&] {
      close(fds[2].fd);
      fds[2].fd = -1;
    };
    auto takeNotes = [&] {
      uint8_t chunk[256];
      ssize_t got = recv(fds[2].fd, chunk, sizeof chunk, MSG_DONTWAIT);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
      if (got <= 0) return stopNotes();
      noteBytes.insert(noteBytes.end(), chunk, chunk + got);
      size_t used = 0;
      for (; noteBytes.size() - used >= kOutputNoteBytes; used += kOutputNoteBytes) {
        OutputNote note;
        // The launcher is this daemon's own program; a malformed note
        // still only ends the notes.
        if (!decodeOutputNote(noteBytes.data() + used, note)) return stopNotes();
        if (note.kind == kOutputNoteMark) {
          for (int stream = 0; stream < 2; ++stream)
            while (forward(stream)) {
            }
          client.send(transport::FrameType::OutputMark, encodeOutputMark(jobId, note.worldRank));
        } else {
          client.send(transport::FrameType::OutputHold,
                      encodeOutputHold(jobId, note.worldRank, note.sourcePart));
          uint8_t sent = kOutputHoldSent;
          if (::send(fds[2].fd, &sent, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) return stopNotes();
        }
      }
      noteBytes.erase(noteBytes.begin(), noteBytes.begin() + ptrdiff_t(used));
    };
    while (open > 0) {
      if (poll(fds, 3, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (int stream = 0; stream < 2; ++stream)
        if (fds[stream].fd >= 0 && (fds[stream].revents & (POLLIN | POLLHUP | POLLERR)))
          forward(stream);
      if (fds[2].fd >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) takeNotes();
    }
    // A note written just before the child's end: its bytes are all sent.
    if (fds[2].fd >= 0) takeNotes();
    for (pollfd& fd : fds)
      if (fd.fd >= 0) close(fd.fd);
  }

  const JobHostConfig config_;
  std::mutex mutex_;
  std::condition_variable idle_;
  std::map<transport::Connection*, std::shared_ptr<HostedJob>> jobs_;
  std::mutex mirrorMutex_;
  std::map<transport::Connection*, MirrorCopy> mirrors_;
  unsigned runningThreads_ = 0;
  bool refusing_ = false;
  // Set by the destructor alone: the spare starter's thread ends.
  bool stopping_ = false;
  ChildProcess spare_;
  // When the spare starter starts the next spare (keepSpare); none: no
  // spare is due.
  std::optional<std::chrono::steady_clock::time_point> nextSpareAt_ =
      std::chrono::steady_clock::now();
  std::condition_variable spareWanted_;
  std::thread spareStarter_;
};

JobHost::JobHost(JobHostConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
JobHost::~JobHost() = default;

bool JobHost::handleFrame(transport::Connection& from, transport::Frame&& frame,
                          std::string& reason) {
  return impl_->handleFrame(from, std::move(frame), reason);
}

void JobHost::connectionClosed(transport::Connection& connection) {
  impl_->connectionClosed(connection);
}

void JobHost::refuseNewJobs() { impl_->refuseNewJobs(); }
void JobHost::waitForJobs() { impl_->waitForJobs(); }

}  // namespace synergy::cluster

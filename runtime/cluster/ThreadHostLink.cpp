//===- ThreadHostLink.cpp - A thread job's parts linked over the transport -===//
#include "cluster/ThreadHostLink.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cluster/JobPart.h"
#include "granule/Module.h"
#include "granule/WasmModuleCheck.h"
#include "omp/RemoteThreads.h"
#include "transport/ClusterToken.h"
#include "transport/FrameCodec.h"
#include "transport/Transport.h"
#include "util/LittleEndian.h"

namespace synergy::cluster {
namespace {

constexpr auto kJoinLimit = std::chrono::seconds(120);
constexpr auto kFlushLimit = std::chrono::seconds(10);

// Both sides of the link; part 0 uses it as an omp::ThreadHostLink, a
// thread host as an omp::MainHostLink.
class ThreadJobLink final : public omp::ThreadHostLink, public omp::MainHostLink {
 public:
  ThreadJobLink(const JobPart& part, unsigned threadsPerHost)
      : part_(part), threadsPerHost_(threadsPerHost), queues_(part.partRanks.size()) {}

  ~ThreadJobLink() override {
    if (transport_) {
      transport_->flush(kFlushLimit);
      transport_->closeConnections();
    }
  }

  bool join(std::string& error) {
    std::string token;
    if (!transport::readClusterToken(part_.tokenFile, token, error)) return false;
    transport_ = std::make_unique<transport::Transport>(transport::TransportConfig{
        .token = token,
        .onFrame = [this](transport::Connection& from, transport::Frame&& frame,
                          std::string& reason) { return onFrame(from, std::move(frame), reason); },
        .placePayload = nullptr,
        .onPlacedFrame = nullptr,
        .onClosed = [this](transport::Connection& connection) { onClosed(connection); },
        .log = [](const std::string& line) {
          std::fprintf(stderr, "synergy-run: cluster: %s\n", line.c_str());
        }});
    if (!transport_->listen(part_.address, 0, error)) return false;
    uint32_t partCount = uint32_t(part_.partRanks.size());
    // Only part 0 connects, so only it waits for the others' endpoints.
    std::map<uint32_t, std::string> endpoints;
    if (!exchangeJobEndpoints(part_,
                              formatJobEndpoint(part_.address, transport_->listeningPort()),
                              part_.partIndex == 0 ? 1 : partCount, kJoinLimit, endpoints, error))
      return false;
    if (part_.partIndex != 0) return true;
    for (uint32_t p = 1; p < partCount; ++p) {
      std::shared_ptr<transport::Connection> connection =
          connectToPart(*transport_, part_, endpoints, p, error);
      if (!connection) return false;
      {
        std::lock_guard<std::mutex> guard(mutex_);
        partOfConnection_[connection.get()] = p;
        peers_[p] = connection;
      }
      std::vector<uint8_t> hello(transport::kOmpThreadHelloBytes);
      util::writeLittleEndian(hello.data(), part_.jobId, 8);
      util::writeLittleEndian(hello.data() + 8, p, 4);
      connection->send(transport::FrameType::OmpThreadHello, std::move(hello));
    }
    return true;
  }

  // omp::ThreadHostLink (part 0).
  uint32_t threadsPerHost() const override { return threadsPerHost_; }
  uint32_t threadHosts() const override { return uint32_t(part_.partRanks.size() - 1); }
  uint64_t maxPayloadBytes() const override { return transport::kMaxFramePayloadBytes; }
  bool spreadsPthreads() const override { return spreadsPthreads_; }
  void setSpreadsPthreads(bool spreads) { spreadsPthreads_ = spreads; }

  void sendRegion(uint32_t host, std::vector<std::vector<uint8_t>> copyUpdate,
                  std::vector<uint8_t> share) override {
    std::shared_ptr<transport::Connection> peer = peerOf(host + 1);
    if (!peer) return;  // gone: nextJoinPayload reports it
    for (std::vector<uint8_t>& payload : copyUpdate)
      peer->send(transport::FrameType::OmpCopyUpdate, std::move(payload));
    peer->send(transport::FrameType::OmpRegionShare, std::move(share));
  }

  void sendPthread(uint32_t host, std::vector<std::vector<uint8_t>> copyUpdate,
                   std::vector<uint8_t> start) override {
    std::shared_ptr<transport::Connection> peer = peerOf(host + 1);
    if (!peer) return;  // gone: nextFromHost reports it
    for (std::vector<uint8_t>& payload : copyUpdate)
      peer->send(transport::FrameType::OmpCopyUpdate, std::move(payload));
    peer->send(transport::FrameType::OmpPthreadStart, std::move(start));
  }

  bool nextFromHost(uint32_t host, std::vector<uint8_t>& payload, FromHost& kind,
                    std::string& error) override {
    Queue& queue = queues_[host + 1];
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_.wait(lock, [&] { return !queue.payloads.empty() || queue.closed; });
    if (queue.payloads.empty()) {
      error = "the host left the job while threads of the job ran on it";
      return false;
    }
    transport::FrameType type = queue.payloads.front().first;
    kind = type == transport::FrameType::OmpReductionList ? FromHost::ReductionList
           : type == transport::FrameType::OmpSyncRequest ? FromHost::SyncRequest
                                                          : FromHost::Update;
    payload = std::move(queue.payloads.front().second);
    queue.payloads.pop_front();
    return true;
  }

  void sendReply(uint32_t host, std::vector<std::vector<uint8_t>> copyUpdate,
                 std::vector<uint8_t> reply) override {
    std::shared_ptr<transport::Connection> peer = peerOf(host + 1);
    if (!peer) return;  // gone: nextFromHost reports it
    for (std::vector<uint8_t>& payload : copyUpdate)
      peer->send(transport::FrameType::OmpCopyUpdate, std::move(payload));
    peer->send(transport::FrameType::OmpSyncReply, std::move(reply));
  }

  // omp::MainHostLink (a thread host).
  Message next(std::vector<uint8_t>& payload) override {
    Queue& queue = queues_[0];
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_.wait(lock, [&] { return !queue.payloads.empty() || queue.closed; });
    if (queue.payloads.empty()) return Message::Closed;
    transport::FrameType type = queue.payloads.front().first;
    Message message = type == transport::FrameType::OmpCopyUpdate     ? Message::CopyUpdate
                      : type == transport::FrameType::OmpSyncReply    ? Message::SyncReply
                      : type == transport::FrameType::OmpPthreadStart ? Message::PthreadStart
                                                                      : Message::RegionShare;
    payload = std::move(queue.payloads.front().second);
    queue.payloads.pop_front();
    return message;
  }

  void sendUpdate(std::vector<std::vector<uint8_t>> payloads, uint32_t reductionList) override {
    std::shared_ptr<transport::Connection> peer = peerOf(0);
    if (!peer) return;
    for (std::vector<uint8_t>& payload : payloads)
      peer->send(transport::FrameType::OmpJoinUpdate, std::move(payload));
    if (reductionList)
      peer->send(transport::FrameType::OmpReductionList,
                 {uint8_t(reductionList), uint8_t(reductionList >> 8),
                  uint8_t(reductionList >> 16), uint8_t(reductionList >> 24)});
  }

  void sendRequest(std::vector<std::vector<uint8_t>> payloads,
                   std::vector<uint8_t> request) override {
    std::shared_ptr<transport::Connection> peer = peerOf(0);
    if (!peer) return;
    for (std::vector<uint8_t>& payload : payloads)
      peer->send(transport::FrameType::OmpJoinUpdate, std::move(payload));
    peer->send(transport::FrameType::OmpSyncRequest, std::move(request));
  }

 private:
  struct Queue {
    std::deque<std::pair<transport::FrameType, std::vector<uint8_t>>> payloads;
    bool closed = false;
  };

  std::shared_ptr<transport::Connection> peerOf(uint32_t part) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = peers_.find(part);
    return it == peers_.end() ? nullptr : it->second;
  }

  bool onFrame(transport::Connection& from, transport::Frame&& frame, std::string& reason) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto known = partOfConnection_.find(&from);
    if (frame.type == transport::FrameType::OmpThreadHello) {
      uint64_t jobId = frame.payload.size() == transport::kOmpThreadHelloBytes
                           ? util::readLittleEndian(frame.payload.data(), 8)
                           : 0;
      uint64_t part = frame.payload.size() == transport::kOmpThreadHelloBytes
                          ? util::readLittleEndian(frame.payload.data() + 8, 4)
                          : 0;
      if (part_.partIndex == 0 || known != partOfConnection_.end() || peers_.count(0) ||
          jobId != part_.jobId || part != part_.partIndex) {
        reason = "OmpThreadHello from job " + std::to_string(jobId) + " part " +
                 std::to_string(part) + ", which this part does not wait for";
        return false;
      }
      partOfConnection_[&from] = 0;
      peers_[0] = from.shared_from_this();
      return true;
    }
    bool expected =
        known != partOfConnection_.end() &&
        (part_.partIndex == 0
             ? frame.type == transport::FrameType::OmpJoinUpdate ||
                   frame.type == transport::FrameType::OmpReductionList ||
                   frame.type == transport::FrameType::OmpSyncRequest
             : frame.type == transport::FrameType::OmpCopyUpdate ||
                   frame.type == transport::FrameType::OmpRegionShare ||
                   frame.type == transport::FrameType::OmpSyncReply ||
                   frame.type == transport::FrameType::OmpPthreadStart);
    if (!expected) {
      reason = std::string("unexpected ") + transport::frameTypeName(frame.type) +
               " on a thread job's link";
      return false;
    }
    queues_[known->second].payloads.emplace_back(frame.type, std::move(frame.payload));
    arrived_.notify_all();
    return true;
  }

  void onClosed(transport::Connection& connection) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto known = partOfConnection_.find(&connection);
    if (known == partOfConnection_.end()) return;
    queues_[known->second].closed = true;
    partOfConnection_.erase(known);
    arrived_.notify_all();
  }

  JobPart part_;
  unsigned threadsPerHost_;
  bool spreadsPthreads_ = false;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<const transport::Connection*, uint32_t> partOfConnection_;
  std::map<uint32_t, std::shared_ptr<transport::Connection>> peers_;
  // By part: on part 0 the updates and requests of each thread host, on a thread
  // host (index 0) what part 0 sent.
  std::vector<Queue> queues_;
  // Last, so that its I/O thread stops before the tables it uses go.
  std::unique_ptr<transport::Transport> transport_;
};

// The value of `name` in a KEY=VALUE list, or null.
const char* valueIn(const std::vector<std::string>& environment, const std::string& name) {
  for (const std::string& entry : environment)
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=')
      return entry.c_str() + name.size() + 1;
  return nullptr;
}

}  // namespace

unsigned prepareThreadJob(std::vector<std::string>& environment, unsigned threadsPerHost,
                          std::string& error) {
  for (char** entry = environ; *entry; ++entry) {
    std::string text = *entry;
    size_t equals = text.find('=');
    if (equals == std::string::npos) continue;
    if ((text.rfind("OMP_", 0) == 0 || text.rfind("GOMP_", 0) == 0) &&
        !valueIn(environment, text.substr(0, equals)))
      environment.push_back(text);
  }
  const char* threads = valueIn(environment, "OMP_NUM_THREADS");
  if (!threads) {
    error = "--threads-per-host needs OMP_NUM_THREADS (in the environment or --env)";
    return 0;
  }
  // A list gives one value per nesting level; only the outermost spreads.
  char* end = nullptr;
  long count = std::strtol(threads, &end, 10);
  if (end == threads || (*end && *end != ',') || count < 1 || count > 1 << 20) {
    error = std::string("OMP_NUM_THREADS is not a thread count: '") + threads + "'";
    return 0;
  }
  environment.push_back(std::string(kThreadsPerHostVariable) + "=" +
                        std::to_string(threadsPerHost));
  return unsigned((count + threadsPerHost - 1) / threadsPerHost);
}

unsigned threadsPerHostOf(const std::vector<std::string>& environment) {
  const char* text = valueIn(environment, kThreadsPerHostVariable);
  if (!text) return 0;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  return end != text && !*end && value >= 1 && value <= 4096 ? unsigned(value) : 0;
}

int runThreadJobPart(const std::string& partFile, mpi::JobOptions job, unsigned threadsPerHost) {
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "synergy-run: error: %s: %s\n", partFile.c_str(), message.c_str());
    return 2;
  };
  // A part dies with its synergyd (see runJobPart).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return fail("synergyd is gone");
  JobPart part;
  std::string error;
  if (!readJobPart(partFile, part, error)) return fail(error);
  for (uint32_t ranks : part.partRanks)
    if (ranks != 1) return fail("a thread job has one slot per host");
  if (job.ranks != 1) return fail("a thread job's part runs with -np 1");
  ThreadJobLink link(part, threadsPerHost);
  if (!link.join(error)) return fail(error);
  if (part.partIndex == 0) {
    // A pthread on a thread host can neither start an OpenMP region nor
    // take an OpenMP lock or critical section (those would be the thread
    // host's own, not the job's), so a program that calls into the OpenMP
    // runtime at all keeps its pthreads here.
    std::ifstream wasm(job.program, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(wasm)), std::istreambuf_iterator<char>());
    link.setSpreadsPthreads(!granule::importsNameStartingWith(bytes, "env", "__kmpc_") &&
                            !granule::importsNameStartingWith(bytes, "env", "omp_"));
    job.reportAtEnd = [&job] {
      const char* stats = valueIn(job.config.env, "SYNERGY_DSM_STATS");
      if (!stats) stats = std::getenv("SYNERGY_DSM_STATS");
      if (!stats || !std::strcmp(stats, "0")) return;
      omp::RemoteTeamStatistics totals = omp::remoteTeamStatistics();
      std::fprintf(stderr,
                   "synergy-run: threads across hosts: %llu regions, copy updates of %llu bytes "
                   "first and %llu after, join updates of %llu bytes, %llu synchronisations\n",
                   (unsigned long long)totals.regions, (unsigned long long)totals.firstCopyBytes,
                   (unsigned long long)totals.laterCopyBytes, (unsigned long long)totals.joinBytes,
                   (unsigned long long)totals.synchronisations);
      if (totals.loopClaims)
        std::fprintf(stderr,
                     "synergy-run: threads across hosts: %llu loop chunks in %llu claims of "
                     "thread hosts\n",
                     (unsigned long long)totals.loopChunks, (unsigned long long)totals.loopClaims);
      if (totals.pthreads)
        std::fprintf(stderr,
                     "synergy-run: threads across hosts: %llu pthreads ran on thread hosts\n",
                     (unsigned long long)totals.pthreads);
    };
    omp::setThreadHostLink(&link);
    // Ends the process itself while detached pthreads still run (the
    // services of those on thread hosts use `link`).
    int status = mpi::runJob(job);
    omp::setThreadHostLink(nullptr);
    job.reportAtEnd();
    return status;
  }
  auto module = granule::Module::loadFile(job.program, error, job.showProgress);
  if (!module) return fail(error);
  return omp::serveThreadHost(module, job.config, link);
}

}  // namespace synergy::cluster

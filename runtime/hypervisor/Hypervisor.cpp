//===- Hypervisor.cpp - The engine host behind synergy-hv ------------------===//
//
// This file implements Hypervisor.h. Every request becomes a Work item on
// its connection's queue; the fabric thread serves finished builds first,
// then one item of each connection in turn (round-robin), so a tenant that
// sends several requests ahead cannot make the others wait behind all of
// them: the fabric is the tenants' one shared path. A connection's state
// (greeted, its engines) is touched only on the fabric thread; the I/O
// thread keeps just the per-connection count of unanswered requests, which
// bounds what a client that never reads its replies can make us queue.
//
//===----------------------------------------------------------------------===//
#include "hypervisor/Hypervisor.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "engine/EmittedVerilogCheck.h"
#include "engine/EngineBuilder.h"
#include "engine/EngineInstance.h"
#include "engine/EngineRunner.h"
#include "engine/FileTable.h"
#include "engine/TaskServicer.h"
#include "engine/Timeline.h"
#include "hwlower/EngineManifest.h"
#include "hypervisor/CombinedProgram.h"
#include "hypervisor/FabricProgram.h"
#include "hypervisor/HypervisorClient.h"
#include "hypervisor/HypervisorProtocol.h"
#include "transport/ClusterToken.h"
#include "transport/FrameCodec.h"
#include "transport/Transport.h"
#include "util/PrintableText.h"

namespace synergy::hypervisor {

using transport::Connection;
using transport::Frame;
using transport::FrameType;

namespace {

// A well-behaved client has one request outstanding; a few more are allowed
// so that a reply racing the next request is no error.
constexpr unsigned kMaxOutstandingRequests = 4;
// An open-loop request runs in chunks of at most the runtime's own local
// batch (EngineRunner.cpp) until it is done, a task that is not output-only
// traps or its time slice is over: the fabric thread serves one request at
// a time, so the slice bounds how long the other tenants wait, while a
// compute-bound tenant still gets many ticks per network round trip. The
// slice is short when anything else waits for the fabric (another tenant's
// request, a finished build) and longer when the tenant has it to itself,
// so that a lone tenant does not pay a round trip, and on a loaded host a
// wake-up, every few milliseconds: 100 ms while the run holds output for
// the tenant to write (the traps of output-only tasks), 1 s while it has
// only ticks to report, whose progress the tenant gets meanwhile
// (HvRunProgress, every engine::Timeline::kPeriod). The reply's tick count
// says how far it got, as for any run cut short.
constexpr uint32_t kOpenLoopChunk = 1u << 12;
constexpr std::chrono::milliseconds kOpenLoopSlice{5};
constexpr std::chrono::milliseconds kLoneOpenLoopSlice{100};
constexpr std::chrono::milliseconds kLoneQuietOpenLoopSlice{1000};
// A slice is only looked at between two chunks, so each engine's chunk is
// sized to take about this long: a design whose ticks are slow (4096 of
// them can take seconds) gets fewer ticks per chunk, and the slice, the
// progress reports and a move into a new program wait for no long chunk.
// Sized from wall time, so on a loaded host chunks get shorter; a chunk
// costs one call into the engine.
constexpr std::chrono::microseconds kChunkTime{2000};
constexpr uint32_t kFirstOpenLoopChunk = 16;
// Traps after which an open-loop run winds down to the end of its tick,
// leaving the other half of the reply for that tick's own traps.
constexpr size_t kWindDownTraps = transport::kMaxHvRunTraps / 2;
// A run of a design that traps every tick (file_sum: two input tasks a
// tick) goes round its loop a few million times a second, and reading the
// clock each time was a tenth of the fabric thread's CPU per served task.
// The slice is looked at after this many traps, or once the run has done
// this many ticks since it last looked, which keeps its overrun to a few
// microseconds for a trapping design and to one chunk for any other.
constexpr uint32_t kTrapsPerSliceCheck = 64;
constexpr uint32_t kTicksPerSliceCheck = 256;

bool isRequest(FrameType type) {
  switch (type) {
    case FrameType::HvHello:
    case FrameType::HvSubmitEngine:
    case FrameType::HvGetState:
    case FrameType::HvSetState:
    case FrameType::HvEvaluate:
    case FrameType::HvResume:
    case FrameType::HvUpdate:
    case FrameType::HvThereAreUpdates:
    case FrameType::HvOpenLoop:
    case FrameType::HvFinalize:
    case FrameType::HvStatus:
    case FrameType::HvBatch:
    case FrameType::HvMigrate:
    case FrameType::HvReadState:
      return true;
    default:
      return false;
  }
}

using Clock = std::chrono::steady_clock;

// The CPU time of the calling (fabric) thread: on a loaded host a move's
// wall time is mostly waiting for a core, and this is what it cost.
double fabricThreadCpuMs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

// A combined program the engine is to move into at its next tick boundary.
struct PendingMove {
  std::shared_ptr<FabricProgram> program;
  uint64_t generation = 0;
  uint32_t slot = 0;
  Clock::time_point since;  // when the program was ready: the interrupt
};

// What an open-loop run may do at a trap of each task without the tenant:
// go past an output-only one, or serve an input task from a read-ahead
// window; a $yield is the tenant's too, and marks its tick as one the
// engine may move at. Classified once per engine, so that a trap costs no
// string compares.
enum class TrapRole : uint8_t { Tenant, Yield, OutputOnly, Input };

struct HostedEngine {
  uint32_t id = 0;
  Connection* owner = nullptr;
  std::shared_ptr<const hwlower::EngineManifest> manifest;
  std::vector<TrapRole> trapRoles;  // by task id - 1
  // The ticks of one open-loop chunk (see kChunkTime); a new engine's
  // first chunk is short, as its speed is not known yet.
  uint32_t chunkTicks = kFirstOpenLoopChunk;
  // Declared before the instance, which steps it until it is gone.
  std::unique_ptr<engine::EngineCallCounter> calls;
  // The combined program the instance is a slot of (null: its own object,
  // generation 0), declared before the instance, which lives inside it.
  std::shared_ptr<FabricProgram> program;
  uint64_t generation = 0;
  std::unique_ptr<engine::EngineInstance> instance;  // null while building
  // Serves the engine's input tasks from read-ahead windows with the
  // tenant's own code; made anew for each instance, which it drives.
  std::unique_ptr<engine::TaskServicer> inputs;
  std::optional<PendingMove> move;
  // A $yield trapped since the engine last stood between two ticks.
  bool yieldFired = false;
  // synergy-hv-ctl migrate: the hypervisor ("HOST:PORT") the tenant is told
  // to take the engine to at its next tick boundary.
  std::optional<std::string> leaveFor;
};

struct Tenant {
  uint64_t number = 0;
  std::shared_ptr<Connection> connection;
  bool greeted = false;
  std::vector<uint32_t> engines;
  uint64_t requests = 0;
  uint64_t refusals = 0;
};

struct Work {
  enum class Kind { Request, Closed, Built, ProgramBuilt } kind = Kind::Request;
  std::shared_ptr<Connection> connection;
  Frame frame;
  // Built: the engine and its object (or the build's error).
  uint32_t engine = 0;
  std::optional<std::string> object;
  std::string error;
  // ProgramBuilt: the program, loaded (or null and the error), its
  // generation, its engines and their slots.
  std::shared_ptr<FabricProgram> program;
  uint64_t generation = 0;
  std::vector<uint32_t> engines;
  std::vector<uint32_t> slots;
};

// One engine's own object, or (with `program`) a combined program of
// `engines`.
struct BuildJob {
  uint32_t engine = 0;
  std::string verilog;
  std::optional<CombinedProgram> program;
  uint64_t generation = 0;
  std::vector<uint32_t> engines;
};

// A read-ahead window of an open-loop request (HypervisorProtocol.h) as
// the input tasks read it, and how far the run has read into it. A read
// past a window that does not end at the file's end, and a push-back of
// any byte but the one before the position, run short: the tenant, which
// has the file, services that task.
class WindowStream final : public engine::InputStream {
 public:
  explicit WindowStream(const ReadAheadWindow& window) : window_(&window) {}
  int get() override {
    if (consumed_ < window_->bytes.size())
      return window_->bytes[consumed_++];
    if (window_->endsAtEof)
      hitEof_ = true;
    else
      ranShort_ = true;
    return EOF;
  }
  bool unget(uint8_t byte) override {
    if (consumed_ == 0 || window_->bytes[consumed_ - 1] != byte) {
      ranShort_ = true;
      return false;
    }
    --consumed_;
    hitEof_ = false;
    return true;
  }
  bool atEnd() const override { return hitEof_; }
  bool ranShort() const override { return ranShort_; }

  uint32_t descriptor() const { return window_->descriptor; }
  ReadAheadAdvance advance() const { return ReadAheadAdvance{window_->descriptor, consumed_, hitEof_, tasks_}; }
  bool used() const { return tasks_ > 0; }
  void countTask() { ++tasks_; }

 private:
  const ReadAheadWindow* window_;
  uint32_t consumed_ = 0;
  bool hitEof_ = false;
  bool ranShort_ = false;
  uint32_t tasks_ = 0;
};

}  // namespace

class Hypervisor::Impl {
 public:
  explicit Impl(HypervisorConfig config);
  ~Impl();
  bool listen(const std::string& address, uint16_t port, std::string& error) {
    return transport_->listen(address, port, error);
  }
  uint16_t listeningPort() const { return transport_->listeningPort(); }

 private:
  bool onFrame(Connection& from, Frame&& frame, std::string& reason);
  void post(Work work);
  void runFabric();
  void runBuilds();
  void serve(Work& work);
  void serveRequest(Tenant& tenant, Frame& frame);
  void serveEngineRequest(Tenant& tenant, Frame& frame);
  void serveBatch(Tenant& tenant, const Frame& frame);
  void serveStateRead(Tenant& tenant, const Frame& frame);
  void markForMigration(Tenant& tenant, const Frame& frame);
  bool sendAway(Tenant& tenant, HostedEngine& hosted, FrameType request);
  HostedEngine* tenantsEngine(Tenant& tenant, uint32_t id);
  std::optional<std::string> checkStateWord(const HostedEngine& hosted, const StateWordRecord& address, bool write);
  uint32_t appendTrappedTaskWords(HostedEngine& hosted, uint32_t task,
                                  std::vector<StateWordRecord>& words, bool& complete);
  void noteTrap(HostedEngine& hosted, uint32_t task);
  bool sliceIsOver(Clock::duration spent, bool holdsOutput);
  void resizeChunk(HostedEngine& hosted, uint32_t chunk, Clock::duration took);
  void install(HostedEngine& hosted, std::unique_ptr<engine::EngineInstance> instance);
  bool serveFromWindow(HostedEngine& hosted, uint32_t task, std::vector<WindowStream>& windows);
  void serveOpenLoop(Tenant& tenant, HostedEngine& hosted, const std::vector<uint8_t>& payload);
  void submit(Tenant& tenant, const Frame& frame);
  void finishBuild(Work& work);
  void combineEngines(bool evenIfUnchanged);
  void finishProgramBuild(Work& work);
  bool standsBetweenTicks(HostedEngine& hosted);
  void atTickBoundary(HostedEngine& hosted);
  void moveEngine(HostedEngine& hosted);
  void unmarkMoving(Connection* owner);
  void leave(Connection* connection);
  void removeEngine(uint32_t id);
  std::string statusReport() const;
  void reply(Connection& to, FrameType type, std::vector<uint8_t> payload);
  void refuse(Tenant& tenant, const std::string& reason);
  void log(const std::string& line) {
    if (config_.log) config_.log(line);
  }

  HypervisorConfig config_;
  // The input tasks the hypervisor serves read windows, never a file.
  engine::FileTable noFiles_{sandbox::GrantTable()};
  // Running engines worth a combined program: two, or one under the hook.
  size_t minimumCombined_;

  // I/O thread and fabric thread: unanswered requests per connection.
  std::mutex outstandingMutex_;
  std::unordered_map<Connection*, unsigned> outstanding_;

  std::mutex workMutex_;
  std::condition_variable workReady_;
  // Builds finished, served first; then one request (or close) of each
  // connection with work in turn, round-robin, each connection's in order.
  std::deque<Work> buildsDone_;
  std::unordered_map<Connection*, std::deque<Work>> connectionWork_;
  std::deque<Connection*> rotation_;
  // Connections with an engine to move into a new program at its next
  // request: served ahead of the rotation, as the time until that request
  // is served is the move's pause (Fig. 7), and other tenants' runs would
  // add a slice each to it.
  std::unordered_set<Connection*> moving_;
  bool stopping_ = false;

  std::mutex buildMutex_;
  std::condition_variable buildReady_;
  std::deque<BuildJob> builds_;
  bool buildsStopping_ = false;

  // Fabric thread only.
  std::map<Connection*, Tenant> tenants_;
  std::map<uint32_t, HostedEngine> engines_;
  uint32_t nextEngineId_ = 1;
  uint64_t nextTenantNumber_ = 1;
  uint64_t generation_ = 0;  // changes whenever the set of running engines does
  uint64_t compiles_ = 0;
  uint64_t cacheHits_ = 0;
  // Engine requests served (an HvBatch is one) and tasks that trapped.
  uint64_t engineRequests_ = 0;
  uint64_t traps_ = 0;
  // The combined programs: the newest one the engines are in or moving to,
  // and its engines; the one compiling, if any, and whether the set of
  // engines changed since it started.
  uint64_t programGeneration_ = 0;
  std::vector<uint32_t> programEngines_;
  std::optional<std::vector<uint32_t>> programCompiling_;
  bool programStale_ = false;
  uint64_t programCompiles_ = 0;
  uint64_t programCacheHits_ = 0;
  // Moves into a newer program: how many, and the longest interrupt to
  // resume and hold (the state copy, while the tenant's request waits).
  uint64_t moves_ = 0;
  double lastMoveMs_ = 0, longestMoveMs_ = 0, longestHoldMs_ = 0;

  std::thread fabric_;
  std::thread builder_;
  // Last, so it is destroyed first: no handler runs once the rest goes.
  std::unique_ptr<transport::Transport> transport_;
};

Hypervisor::Impl::Impl(HypervisorConfig config)
    : config_(std::move(config)), minimumCombined_(config_.recombineEveryRequests ? 1 : 2) {
  transport::TransportConfig transportConfig;
  transportConfig.token = config_.token;
  transportConfig.onFrame = [this](Connection& from, Frame&& frame, std::string& reason) {
    return onFrame(from, std::move(frame), reason);
  };
  transportConfig.onClosed = [this](Connection& connection) {
    {
      std::lock_guard<std::mutex> lock(outstandingMutex_);
      outstanding_.erase(&connection);
    }
    Work work;
    work.kind = Work::Kind::Closed;
    work.connection = connection.shared_from_this();
    post(std::move(work));
  };
  transportConfig.log = [this](const std::string& line) { log(line); };
  fabric_ = std::thread([this] { runFabric(); });
  builder_ = std::thread([this] { runBuilds(); });
  transport_ = std::make_unique<transport::Transport>(std::move(transportConfig));
}

Hypervisor::Impl::~Impl() {
  // Builds stop first: the tenants leaving as the transport closes would
  // otherwise queue a combined program nobody will use.
  {
    std::lock_guard<std::mutex> lock(buildMutex_);
    buildsStopping_ = true;
  }
  buildReady_.notify_all();
  transport_.reset();
  {
    std::lock_guard<std::mutex> lock(workMutex_);
    stopping_ = true;
  }
  workReady_.notify_all();
  builder_.join();
  fabric_.join();
  engines_.clear();
}

// On the I/O thread: only what needs no engine state. A frame of the wrong
// kind or length, or a client far ahead of its replies, loses its connection.
bool Hypervisor::Impl::onFrame(Connection& from, Frame&& frame, std::string& reason) {
  if (!isRequest(frame.type)) {
    reason = std::string("unexpected ") + transport::frameTypeName(frame.type) + " from a hypervisor client";
    return false;
  }
  std::optional<size_t> size = fixedPayloadBytes(uint16_t(frame.type));
  if (size && frame.payload.size() != *size) {
    reason = std::string(transport::frameTypeName(frame.type)) + " payload of " +
             std::to_string(frame.payload.size()) + " bytes, expected " + std::to_string(*size);
    return false;
  }
  if (frame.type == FrameType::HvBatch && !decodeBatch(frame.payload, reason))
    return false;
  if (frame.type == FrameType::HvReadState && !decodeStateRead(frame.payload, reason))
    return false;
  if (frame.type == FrameType::HvOpenLoop && !decodeOpenLoopRequest(frame.payload, reason))
    return false;
  {
    std::lock_guard<std::mutex> lock(outstandingMutex_);
    unsigned& count = outstanding_[&from];
    if (count >= kMaxOutstandingRequests) {
      reason = "more than " + std::to_string(kMaxOutstandingRequests) + " requests without reading the replies";
      return false;
    }
    ++count;
  }
  Work work;
  work.connection = from.shared_from_this();
  work.frame = std::move(frame);
  post(std::move(work));
  return true;
}

void Hypervisor::Impl::post(Work work) {
  {
    std::lock_guard<std::mutex> lock(workMutex_);
    if (stopping_) return;
    if (!work.connection) {
      buildsDone_.push_back(std::move(work));
    } else {
      std::deque<Work>& queue = connectionWork_[work.connection.get()];
      if (queue.empty())
        rotation_.push_back(work.connection.get());
      queue.push_back(std::move(work));
    }
  }
  workReady_.notify_one();
}

void Hypervisor::Impl::runFabric() {
  for (;;) {
    Work work;
    {
      std::unique_lock<std::mutex> lock(workMutex_);
      workReady_.wait(lock, [&] { return stopping_ || !buildsDone_.empty() || !rotation_.empty(); });
      if (stopping_) return;
      if (!buildsDone_.empty()) {
        work = std::move(buildsDone_.front());
        buildsDone_.pop_front();
      } else {
        auto first = rotation_.begin();
        if (!moving_.empty())
          first = std::find_if(rotation_.begin(), rotation_.end(),
                               [&](Connection* waiting) { return moving_.count(waiting) != 0; });
        if (first == rotation_.end())
          first = rotation_.begin();
        Connection* next = *first;
        rotation_.erase(first);
        auto queue = connectionWork_.find(next);
        work = std::move(queue->second.front());
        queue->second.pop_front();
        if (queue->second.empty())
          connectionWork_.erase(queue);
        else
          rotation_.push_back(next);
      }
    }
    serve(work);
  }
}

void Hypervisor::Impl::runBuilds() {
  for (;;) {
    BuildJob job;
    {
      std::unique_lock<std::mutex> lock(buildMutex_);
      buildReady_.wait(lock, [&] { return buildsStopping_ || !builds_.empty(); });
      if (buildsStopping_)
        return;
      job = std::move(builds_.front());
      builds_.pop_front();
    }
    Work work;
    if (job.program) {
      work.kind = Work::Kind::ProgramBuilt;
      work.generation = job.generation;
      work.engines = std::move(job.engines);
      work.slots = job.program->slotOfDesign;
      work.object = engine::buildVerilatedSharedObject(job.program->recipe, work.error);
      // Loading a combined program and creating its model (every slot's
      // power-on blocks) takes milliseconds; here they keep the fabric
      // thread, and so every tenant, waiting for none of it.
      if (work.object)
        work.program = FabricProgram::load(*work.object, uint32_t(work.engines.size()), work.error);
    } else {
      work.kind = Work::Kind::Built;
      work.engine = job.engine;
      work.object = engine::buildEngineSharedObject(job.verilog, work.error);
    }
    post(std::move(work));
  }
}

void Hypervisor::Impl::reply(Connection& to, FrameType type, std::vector<uint8_t> payload) {
  {
    std::lock_guard<std::mutex> lock(outstandingMutex_);
    auto found = outstanding_.find(&to);
    if (found != outstanding_.end() && found->second > 0) --found->second;
  }
  to.send(type, std::move(payload));
}

void Hypervisor::Impl::refuse(Tenant& tenant, const std::string& reason) {
  ++tenant.refusals;
  log("refused a request of tenant " + std::to_string(tenant.number) + " (" + tenant.connection->peerName() +
      "): " + reason);
  std::string line = reason.substr(0, transport::kMaxRefusalBytes);
  reply(*tenant.connection, FrameType::HvRefused, textPayload(line));
}

void Hypervisor::Impl::serve(Work& work) {
  Connection* key = work.connection.get();
  switch (work.kind) {
    case Work::Kind::Closed:
      leave(key);
      return;
    case Work::Kind::Built:
      finishBuild(work);
      return;
    case Work::Kind::ProgramBuilt:
      finishProgramBuild(work);
      return;
    case Work::Kind::Request: {
      auto [entry, added] = tenants_.try_emplace(key);
      Tenant& tenant = entry->second;
      if (added) {
        tenant.number = nextTenantNumber_++;
        tenant.connection = work.connection;
      }
      ++tenant.requests;
      serveRequest(tenant, work.frame);
      return;
    }
  }
}

void Hypervisor::Impl::serveRequest(Tenant& tenant, Frame& frame) {
  if (frame.type == FrameType::HvHello) {
    uint32_t version = PayloadReader(frame.payload).u32();
    if (version != kHypervisorProtocolVersion)
      return refuse(tenant, "protocol version " + std::to_string(version) + " is not supported (this is " +
                                std::to_string(kHypervisorProtocolVersion) + ")");
    tenant.greeted = true;
    return reply(*tenant.connection, FrameType::HvWelcome, PayloadWriter().u32(kHypervisorProtocolVersion).take());
  }
  if (!tenant.greeted)
    return refuse(tenant, std::string(transport::frameTypeName(frame.type)) + " before HvHello");
  if (frame.type == FrameType::HvStatus)
    return reply(*tenant.connection, FrameType::HvStatusReport, textPayload(statusReport()));
  if (frame.type == FrameType::HvSubmitEngine)
    return submit(tenant, frame);
  if (frame.type == FrameType::HvMigrate)
    return markForMigration(tenant, frame);
  ++engineRequests_;
  if (config_.recombineEveryRequests && engineRequests_ % config_.recombineEveryRequests == 0)
    combineEngines(/*evenIfUnchanged=*/true);
  if (frame.type == FrameType::HvBatch)
    return serveBatch(tenant, frame);
  if (frame.type == FrameType::HvReadState)
    return serveStateRead(tenant, frame);
  serveEngineRequest(tenant, frame);
}

// Checks the manifest as a local run would, then queues the build. The
// tenant's reply waits for the build and the engine's creation.
void Hypervisor::Impl::submit(Tenant& tenant, const Frame& frame) {
  if (tenant.engines.size() >= config_.maxEnginesPerTenant)
    return refuse(tenant, "a tenant may hold at most " + std::to_string(config_.maxEnginesPerTenant) + " engines");
  if (engines_.size() >= config_.maxEngines)
    return refuse(tenant, "the hypervisor is full (" + std::to_string(config_.maxEngines) + " engines)");
  std::istringstream text(std::string(frame.payload.begin(), frame.payload.end()));
  std::string error;
  auto manifest = hwlower::readEngineManifest(text, error);
  if (!manifest)
    return refuse(tenant, "malformed engine: line " + error);
  if (auto refused = engine::checkEmittedVerilog(manifest->verilog))
    return refuse(tenant, "refusing the engine's Verilog: " + *refused);
  std::optional<uint64_t> stateBytes = engine::designStateBytes(*manifest);
  uint64_t tenantBytes = stateBytes.value_or(UINT64_MAX);
  for (uint32_t id : tenant.engines)
    if (__builtin_add_overflow(tenantBytes, *engine::designStateBytes(*engines_.at(id).manifest), &tenantBytes))
      tenantBytes = UINT64_MAX;
  if (tenantBytes > config_.maxTenantStateBytes)
    return refuse(tenant, "the tenant's engines would hold " +
                              (tenantBytes == UINT64_MAX ? std::string("over 2^64") : std::to_string(tenantBytes)) +
                              " bytes of state, more than this hypervisor's --max-tenant-state (" +
                              std::to_string(config_.maxTenantStateBytes) + " bytes)");
  HostedEngine hosted;
  hosted.id = nextEngineId_++;
  hosted.owner = tenant.connection.get();
  hosted.manifest = std::make_shared<const hwlower::EngineManifest>(std::move(*manifest));
  for (const hwlower::Task& task : hosted.manifest->tasks)
    hosted.trapRoles.push_back(engine::TaskServicer::onlyWritesOutput(task.name) ? TrapRole::OutputOnly
                               : engine::TaskServicer::readsInput(task.name)    ? TrapRole::Input
                               : task.name == "$yield"                          ? TrapRole::Yield
                                                                                : TrapRole::Tenant);
  hosted.calls = std::make_unique<engine::EngineCallCounter>();
  BuildJob job{hosted.id, hosted.manifest->verilog};
  if (engine::findCachedEngineSharedObject(job.verilog))
    ++cacheHits_;
  else
    ++compiles_;
  tenant.engines.push_back(hosted.id);
  log("tenant " + std::to_string(tenant.number) + " (" + tenant.connection->peerName() + ") submitted engine " +
      std::to_string(hosted.id) + " (\"" + util::printableText(hosted.manifest->top, "\"\\") + "\")");
  engines_.emplace(hosted.id, std::move(hosted));
  {
    // A tenant waits for its own engine; a combined program only saves work.
    std::lock_guard<std::mutex> lock(buildMutex_);
    auto firstProgram = std::find_if(builds_.begin(), builds_.end(), [](const BuildJob& queued) {
      return queued.program.has_value();
    });
    builds_.insert(firstProgram, std::move(job));
  }
  buildReady_.notify_one();
}

void Hypervisor::Impl::finishBuild(Work& work) {
  auto found = engines_.find(work.engine);
  if (found == engines_.end())
    return;  // its tenant left while it was building
  HostedEngine& hosted = found->second;
  Tenant& tenant = tenants_.at(hosted.owner);
  std::string error = work.error;
  if (work.object)
    install(hosted, engine::EngineInstance::load(*work.object, *hosted.calls, error));
  if (!hosted.instance) {
    removeEngine(hosted.id);
    return refuse(tenant, "cannot build the engine: " + error);
  }
  ++generation_;
  log("engine " + std::to_string(hosted.id) + " of tenant " + std::to_string(tenant.number) + " is running");
  reply(*tenant.connection, FrameType::HvEngineReady, PayloadWriter().u32(hosted.id).take());
  combineEngines(/*evenIfUnchanged=*/false);
}

// Starts a combined program of every running engine on the build thread,
// unless one is compiling (it is redone when it is ready), the engines are
// too few to share a program, or the newest program holds exactly them.
void Hypervisor::Impl::combineEngines(bool evenIfUnchanged) {
  std::vector<uint32_t> running;
  for (const auto& [id, hosted] : engines_)
    if (hosted.instance)
      running.push_back(id);
  if (programCompiling_) {
    programStale_ = programStale_ || evenIfUnchanged || running != *programCompiling_;
    return;
  }
  if (running.size() < minimumCombined_ || (!evenIfUnchanged && running == programEngines_))
    return;
  std::vector<std::string> designs;
  for (uint32_t id : running)
    designs.push_back(engines_.at(id).manifest->verilog);
  std::string error;
  std::optional<CombinedProgram> program = hypervisor::combineEngines(designs, error);
  if (!program) {
    log("cannot combine the engines: " + error);
    return;
  }
  if (engine::findCachedVerilatedSharedObject(program->recipe))
    ++programCacheHits_;
  else
    ++programCompiles_;
  BuildJob job;
  job.program = std::move(program);
  job.generation = programGeneration_ + 1;
  job.engines = running;
  programCompiling_ = running;
  programStale_ = false;
  {
    std::lock_guard<std::mutex> lock(buildMutex_);
    builds_.push_back(std::move(job));
  }
  buildReady_.notify_one();
}

// The new program is the newest: every engine of it that is still here
// moves into its slot at its next tick boundary (now, if it stands at one).
void Hypervisor::Impl::finishProgramBuild(Work& work) {
  programCompiling_.reset();
  std::shared_ptr<FabricProgram> program = std::move(work.program);
  if (!program) {
    log("combined program " + std::to_string(work.generation) + " failed; the engines stay where they are: " +
        work.error);
  } else {
    programGeneration_ = work.generation;
    programEngines_.clear();
    Clock::time_point ready = Clock::now();
    std::string held;
    for (size_t k = 0; k < work.engines.size(); ++k) {
      auto found = engines_.find(work.engines[k]);
      if (found == engines_.end() || !found->second.instance)
        continue;
      programEngines_.push_back(found->first);
      held += " " + std::to_string(found->first);
      found->second.move = PendingMove{program, work.generation, work.slots[k], ready};
      atTickBoundary(found->second);
      if (found->second.move) {
        std::lock_guard<std::mutex> lock(workMutex_);
        moving_.insert(found->second.owner);
      }
    }
    log("combined program " + std::to_string(work.generation) + " is ready for engines" + held);
  }
  if (programStale_) {
    programStale_ = false;
    combineEngines(/*evenIfUnchanged=*/true);
  }
}

// With no pass running, no task pending and no update to latch, the
// manifest's variables are the engine's whole state (EngineRunner's
// hand-off). An evaluation with no edges to spend checks the first two
// without clocking anything.
bool Hypervisor::Impl::standsBetweenTicks(HostedEngine& hosted) {
  uint64_t noEdges = 0;
  return hosted.instance->evaluate(noEdges) == 0 && !hosted.instance->thereAreUpdates();
}

// Called before each request an engine serves: the daemon holds the
// request while the engine moves, if it is to move and stands between two
// ticks. A design that uses $yield moves only at the end of a tick in which
// $yield fired, and keeps only its non-volatile state.
void Hypervisor::Impl::atTickBoundary(HostedEngine& hosted) {
  if (!hosted.move && !hosted.yieldFired)
    return;
  if (!standsBetweenTicks(hosted))
    return;
  if (hosted.move && (!hosted.manifest->usesYield || hosted.yieldFired))
    moveEngine(hosted);
  hosted.yieldFired = false;
}

void Hypervisor::Impl::moveEngine(HostedEngine& hosted) {
  PendingMove move = std::move(*hosted.move);
  hosted.move.reset();
  unmarkMoving(hosted.owner);
  Clock::time_point start = Clock::now();
  double startCpuMs = fabricThreadCpuMs();
  std::unique_ptr<engine::EngineInstance> moved = move.program->adoptSlot(move.slot, *hosted.calls);
  uint64_t words = 0;
  bool onlyNonVolatile = hosted.manifest->usesYield;
  for (const hwlower::StateVar& state : hosted.manifest->states) {
    if (state.kind == hwlower::StateKind::Wire || (onlyNonVolatile && !state.nonVolatile))
      continue;
    uint64_t elements = state.depth == 0 ? 1 : state.depth;
    uint32_t wordsPerElement = uint32_t((uint64_t(state.width) + 63) / 64);
    for (uint64_t element = 0; element < elements; ++element)
      for (uint32_t word = 0; word < wordsPerElement; ++word, ++words)
        moved->setWord(state.id, element, hosted.instance->getWord(state.id, element, word), word);
  }
  install(hosted, std::move(moved));
  hosted.program = std::move(move.program);
  hosted.generation = move.generation;
  Clock::time_point end = Clock::now();
  double holdMs = std::chrono::duration<double, std::milli>(end - start).count();
  double pauseMs = std::chrono::duration<double, std::milli>(end - move.since).count();
  ++moves_;
  lastMoveMs_ = pauseMs;
  longestMoveMs_ = std::max(longestMoveMs_, pauseMs);
  longestHoldMs_ = std::max(longestHoldMs_, holdMs);
  char figures[200];
  std::snprintf(figures, sizeof figures,
                "%.3f ms from the interrupt, %.3f ms holding it (%.3f ms of CPU, %llu state words)", pauseMs,
                holdMs, fabricThreadCpuMs() - startCpuMs, static_cast<unsigned long long>(words));
  log("engine " + std::to_string(hosted.id) + " moved into combined program " + std::to_string(move.generation) +
      " slot " + std::to_string(move.slot) + ": " + figures);
}

// The connection goes back into the rotation's order once none of its
// engines waits to move.
void Hypervisor::Impl::unmarkMoving(Connection* owner) {
  for (const auto& [id, hosted] : engines_)
    if (hosted.owner == owner && hosted.move)
      return;
  std::lock_guard<std::mutex> lock(workMutex_);
  moving_.erase(owner);
}

void Hypervisor::Impl::removeEngine(uint32_t id) {
  auto found = engines_.find(id);
  if (found == engines_.end())
    return;
  auto tenant = tenants_.find(found->second.owner);
  if (tenant != tenants_.end())
    std::erase(tenant->second.engines, id);
  bool wasRunning = found->second.instance != nullptr;
  Connection* owner = found->second.owner;
  engines_.erase(found);
  unmarkMoving(owner);
  if (wasRunning) {
    ++generation_;
    combineEngines(/*evenIfUnchanged=*/false);
  }
}

void Hypervisor::Impl::leave(Connection* connection) {
  auto found = tenants_.find(connection);
  if (found == tenants_.end())
    return;
  std::vector<uint32_t> engines = found->second.engines;
  for (uint32_t id : engines)
    removeEngine(id);
  if (!engines.empty())
    log("tenant " + std::to_string(found->second.number) + " left; finalized " + std::to_string(engines.size()) +
        " engine(s)");
  tenants_.erase(found);
  // A later connection may be given the same address.
  std::lock_guard<std::mutex> lock(workMutex_);
  moving_.erase(connection);
}

HostedEngine* Hypervisor::Impl::tenantsEngine(Tenant& tenant, uint32_t id) {
  auto found = engines_.find(id);
  if (found == engines_.end() || found->second.owner != tenant.connection.get()) {
    refuse(tenant, "engine " + std::to_string(id) + " is not one of this tenant's engines");
    return nullptr;
  }
  if (!found->second.instance) {
    refuse(tenant, "engine " + std::to_string(id) + " is still being built");
    return nullptr;
  }
  return &found->second;
}

// A refusal reason unless the word lies within the engine's own manifest
// (and, for a write, belongs to a variable rather than a net).
std::optional<std::string> Hypervisor::Impl::checkStateWord(const HostedEngine& hosted,
                                                            const StateWordRecord& address, bool write) {
  const auto& states = hosted.manifest->states;
  if (address.id >= states.size())
    return "state id " + std::to_string(address.id) + " is out of range (the engine has " +
           std::to_string(states.size()) + ")";
  const hwlower::StateVar& state = states[address.id];
  uint64_t elements = state.depth == 0 ? 1 : state.depth;
  if (address.element >= elements)
    return "element " + std::to_string(address.element) + " of state " + std::to_string(address.id) +
           " is out of range (" + std::to_string(elements) + " elements)";
  uint64_t words = (uint64_t(state.width) + 63) / 64;
  if (address.word >= words)
    return "word " + std::to_string(address.word) + " of state " + std::to_string(address.id) +
           " is out of range (width " + std::to_string(state.width) + ")";
  if (write && state.kind == hwlower::StateKind::Wire)
    return "state " + std::to_string(address.id) + " is a net and cannot be written";
  return std::nullopt;
}

// The words the runtime reads to service `task` (TaskServicer.cpp): each
// value argument's words, and the index word an argument's element is read
// from, all taken from the engine's own manifest and checked like a
// request's; at most kMaxHvReplyStateWords, the runtime asks for the rest.
// Reading a word has no effect on the engine, so reading one the runtime
// then does not need changes nothing. `complete` tells whether the words are
// all the runtime reads (every argument's words at its width), which an
// output-only task needs before the engine may run on past it. The words
// are appended to `words` (an open-loop reply's, which holds every trap's);
// returns how many.
uint32_t Hypervisor::Impl::appendTrappedTaskWords(HostedEngine& hosted, uint32_t task,
                                                  std::vector<StateWordRecord>& words,
                                                  bool& complete) {
  const size_t first = words.size();
  complete = false;
  const auto& tasks = hosted.manifest->tasks;
  if (task == 0 || task > tasks.size())
    return 0;
  auto add = [&](uint32_t id, uint32_t element, uint32_t word) {
    if (words.size() - first >= transport::kMaxHvReplyStateWords)
      return false;
    StateWordRecord record{id, element, word, 0};
    if (checkStateWord(hosted, record, false))
      return false;
    for (size_t k = first; k < words.size(); ++k)
      if (words[k].id == id && words[k].element == element && words[k].word == word)
        return true;
    record.data = hosted.instance->getWord(id, element, word);
    words.push_back(record);
    return true;
  };
  const auto& states = hosted.manifest->states;
  bool all = true;
  for (const hwlower::TaskArg& arg : tasks[task - 1].args) {
    if (arg.kind != hwlower::TaskArgKind::Value)
      continue;
    if (arg.stateId >= states.size()) {
      all = false;
      continue;
    }
    uint64_t element = 0;
    if (arg.element != hwlower::kNoElement) {
      element = arg.element;
    } else if (arg.indexStateId != hwlower::kNoState) {
      if (!add(arg.indexStateId, 0, 0)) {
        all = false;
        continue;
      }
      uint64_t raw = 0;
      for (size_t k = first; k < words.size(); ++k)
        if (words[k].id == arg.indexStateId && words[k].element == 0 && words[k].word == 0)
          raw = words[k].data;
      uint32_t indexWidth = states[arg.indexStateId].width;
      element = indexWidth >= 64 ? raw : raw & ((uint64_t(1) << indexWidth) - 1);
    }
    if (element > 0xffffffffu) {
      all = false;
      continue;
    }
    uint64_t count = (uint64_t(std::max(states[arg.stateId].width, arg.width)) + 63) / 64;
    for (uint64_t word = 0; word < count; ++word)
      if (!add(arg.stateId, uint32_t(element), uint32_t(word))) {
        all = false;
        break;
      }
  }
  complete = all;
  return uint32_t(words.size() - first);
}

void Hypervisor::Impl::noteTrap(HostedEngine& hosted, uint32_t task) {
  ++traps_;
  if (task <= hosted.trapRoles.size() && hosted.trapRoles[task - 1] == TrapRole::Yield)
    hosted.yieldFired = true;
}

bool Hypervisor::Impl::sliceIsOver(Clock::duration spent, bool holdsOutput) {
  if (spent < kOpenLoopSlice)
    return false;
  if (spent >= (holdsOutput ? kLoneOpenLoopSlice : kLoneQuietOpenLoopSlice))
    return true;
  std::lock_guard<std::mutex> lock(workMutex_);
  return !rotation_.empty() || !buildsDone_.empty();
}

// Sizes the engine's next chunks from the time this one took: as many ticks
// as took kChunkTime at its speed, at least one, and at most twice this
// chunk (up to kOpenLoopChunk), so a slow phase shortens the chunks at once
// and a fast one lengthens them within a few chunks.
void Hypervisor::Impl::resizeChunk(HostedEngine& hosted, uint32_t chunk, Clock::duration took) {
  uint64_t tookNs = uint64_t(std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()));
  uint64_t fits = uint64_t(chunk) * uint64_t(std::chrono::nanoseconds(kChunkTime).count()) / tookNs;
  hosted.chunkTicks = uint32_t(std::clamp<uint64_t>(fits, 1, std::min<uint64_t>(2 * uint64_t(chunk), kOpenLoopChunk)));
}

void Hypervisor::Impl::install(HostedEngine& hosted, std::unique_ptr<engine::EngineInstance> instance) {
  hosted.inputs.reset();
  hosted.instance = std::move(instance);
  if (hosted.instance)
    hosted.inputs = std::make_unique<engine::TaskServicer>(*hosted.manifest, *hosted.instance, noFiles_,
                                                           std::vector<std::string>());
}

// Serves an input task on a file the request sent a window of, with the
// TaskServicer code a solo run uses, so the window is read exactly as the
// tenant's stream would be. The tenant only sends windows of streams whose
// end-of-file flag is clear and that nothing else may change meanwhile
// (RemoteEngine.cpp), so the window is all the answer depends on. The
// servicer reads the task's arguments through the engine's own state port,
// which ignores an element beyond a memory as it does in a solo run. False,
// leaving the engine and the window as they were, for any other task,
// another file, or a task the window runs short for: the run stops there
// and the tenant services the task itself.
bool Hypervisor::Impl::serveFromWindow(HostedEngine& hosted, uint32_t task, std::vector<WindowStream>& windows) {
  if (windows.empty() || task > hosted.manifest->tasks.size() || hosted.trapRoles[task - 1] != TrapRole::Input)
    return false;
  std::optional<uint32_t> descriptor = hosted.inputs->inputDescriptor(task);
  if (!descriptor)
    return false;
  auto stream = std::find_if(windows.begin(), windows.end(),
                             [&](const WindowStream& open) { return open.descriptor() == *descriptor; });
  if (stream == windows.end())
    return false;
  WindowStream before = *stream;
  if (!hosted.inputs->serviceInput(task, &*stream)) {
    *stream = before;
    return false;
  }
  stream->countTask();
  return true;
}

// An open-loop run goes past every output-only task that traps in it (its
// words are all the runtime needs, and they are taken at the trap) and
// stops at any other, at the end of its ticks or of its slice, or when the
// reply is full; the reply lists every trap in order (HypervisorProtocol.h).
// A tenant whose every tick traps never stands between ticks when it asks:
// to move it, its trapped tick is finished first (a run of no more ticks)
// and the rest of the request is served after the move, or, for a
// migration, by the hypervisor it goes to.
void Hypervisor::Impl::serveOpenLoop(Tenant& tenant, HostedEngine& hosted, const std::vector<uint8_t>& payload) {
  std::string reason;
  std::optional<OpenLoopRequest> request = decodeOpenLoopRequest(payload, reason);
  if (!request)
    return refuse(tenant, reason);  // onFrame let no such request through
  uint32_t ticks = request->ticks;
  uint64_t edgesPerTick = std::min<uint64_t>(request->edgesPerTick, engine::kMaxEdgesPerTick);
  std::vector<WindowStream> windows(request->windows.begin(), request->windows.end());
  Clock::time_point start = Clock::now();
  OpenLoopReply run;
  auto stopAt = [&](uint32_t task) {
    for (const WindowStream& stream : windows)
      if (stream.used())
        run.advances.push_back(stream.advance());
    TrapRecord last{task, run.ticksRun, 0};
    if (task != 0 && task != SYNERGY_ENGINE_UNSETTLED) {
      noteTrap(hosted, task);
      bool complete = false;
      last.wordCount = appendTrappedTaskWords(hosted, task, run.words, complete);
    }
    run.traps.push_back(last);
    reply(*tenant.connection, FrameType::HvOpenLooped, encodeOpenLoopReply(run));
  };
  if ((hosted.move || hosted.leaveFor) && !standsBetweenTicks(hosted)) {
    uint32_t none = 0;
    uint32_t task = hosted.instance->openLoop(0, edgesPerTick, none);
    if (task != 0)
      return stopAt(task);
    atTickBoundary(hosted);
    if (sendAway(tenant, hosted, FrameType::HvOpenLoop))
      return;
  }
  // A run that is over (its slice, or its reply half full) first finishes
  // the tick in progress, going past its output-only tasks and serving its
  // reads as before, so that the engine stands between two ticks while its
  // tenant services the reply: a move into a combined program that becomes
  // ready meanwhile then waits for no request of the tenant (Fig. 7). Only
  // a tick that fills the reply, traps into a task the tenant must service,
  // or is still going after another short slice (a tick that loops on
  // $feof forever, say), still ends the run inside it.
  std::optional<Clock::time_point> windingDownSince;
  uint32_t trapsUnchecked = 0, ticksUnchecked = 0;
  // The clock is looked at after every whole chunk, as before it was after
  // kTicksPerSliceCheck ticks, so sizing the chunks costs no extra reads.
  Clock::time_point lastLook = start, lastProgress = start;
  uint32_t runTasks = 0;
  for (;;) {
    uint32_t chunk = windingDownSince ? 0 : std::min(ticks - run.ticksRun, hosted.chunkTicks);
    uint32_t ticksRun = 0;
    uint32_t task = hosted.instance->openLoop(chunk, edgesPerTick, ticksRun);
    run.ticksRun += ticksRun;
    ticksUnchecked += ticksRun;
    trapsUnchecked += task != 0 ? 1 : 0;
    bool wholeChunk = task == 0 && chunk > 0 && ticksRun == chunk;
    if (wholeChunk || trapsUnchecked >= kTrapsPerSliceCheck || ticksUnchecked >= kTicksPerSliceCheck) {
      trapsUnchecked = ticksUnchecked = 0;
      Clock::time_point now = Clock::now();
      if (wholeChunk)
        resizeChunk(hosted, chunk, now - lastLook);
      lastLook = now;
      if (!windingDownSince && sliceIsOver(now - start, !run.traps.empty()))
        windingDownSince = now;
      if (now - lastProgress >= engine::Timeline::kPeriod && run.ticksRun < ticks) {
        lastProgress = now;
        tenant.connection->send(FrameType::HvRunProgress,
                                encodeRunProgress(RunProgress{hosted.id, run.ticksRun, runTasks}));
      }
    }
    if (!windingDownSince && run.traps.size() >= kWindDownTraps)
      windingDownSince = Clock::now();
    bool mayGoOn = !windingDownSince || Clock::now() - *windingDownSince < kOpenLoopSlice;
    if (task != 0 && task != SYNERGY_ENGINE_UNSETTLED && mayGoOn && task <= hosted.manifest->tasks.size() &&
        run.traps.size() + 1 < transport::kMaxHvRunTraps && hosted.trapRoles[task - 1] == TrapRole::OutputOnly) {
      bool complete = false;
      size_t before = run.words.size();
      uint32_t count = appendTrappedTaskWords(hosted, task, run.words, complete);
      // Room is kept for the words of the trap the run may stop at.
      if (complete &&
          run.words.size() + transport::kMaxHvReplyStateWords <= transport::kMaxHvRunWords) {
        noteTrap(hosted, task);
        ++runTasks;
        run.traps.push_back(TrapRecord{task, run.ticksRun, count});
        continue;
      }
      run.words.resize(before);  // the run stops at this trap, or serves it from a window
    }
    if (task != 0 && task != SYNERGY_ENGINE_UNSETTLED && mayGoOn && serveFromWindow(hosted, task, windows)) {
      noteTrap(hosted, task);
      ++runTasks;
      continue;
    }
    if (task != 0 || ticksRun < chunk || run.ticksRun == ticks || windingDownSince)
      return stopAt(task);
  }
}

// The writes of a batch are checked, all of them, before the first is made:
// a batch with one bad write changes nothing and is refused.
void Hypervisor::Impl::serveBatch(Tenant& tenant, const Frame& frame) {
  std::string reason;
  std::optional<Batch> batch = decodeBatch(frame.payload, reason);
  if (!batch)
    return refuse(tenant, reason);  // onFrame let no such batch through
  HostedEngine* hosted = tenantsEngine(tenant, batch->engine);
  if (!hosted)
    return;
  atTickBoundary(*hosted);
  if (sendAway(tenant, *hosted, static_cast<FrameType>(batch->request)))
    return;
  for (const StateWordRecord& write : batch->writes)
    if (auto refused = checkStateWord(*hosted, write, true))
      return refuse(tenant, *refused);
  if (batch->request != 0 && PayloadReader(batch->record).u32() != batch->engine)
    return refuse(tenant, "an HvBatch's writes and request name different engines");
  for (const StateWordRecord& write : batch->writes)
    hosted->instance->setWord(write.id, write.element, write.data, write.word);
  if (batch->request == 0)
    return reply(*tenant.connection, FrameType::HvDone, {});
  Frame request;
  request.type = static_cast<FrameType>(batch->request);
  request.payload = std::move(batch->record);
  serveEngineRequest(tenant, request);
}

// Every address is checked before any word is read; the words come back in
// the order asked. Reading changes nothing, so it is served whether or not
// the engine is about to move or leave.
void Hypervisor::Impl::serveStateRead(Tenant& tenant, const Frame& frame) {
  std::string reason;
  std::optional<StateRead> read = decodeStateRead(frame.payload, reason);
  if (!read)
    return refuse(tenant, reason);  // onFrame let no such request through
  HostedEngine* hosted = tenantsEngine(tenant, read->engine);
  if (!hosted)
    return;
  for (const StateWordRecord& address : read->addresses)
    if (auto refused = checkStateWord(*hosted, address, false))
      return refuse(tenant, *refused);
  for (StateWordRecord& address : read->addresses)
    address.data = hosted->instance->getWord(address.id, address.element, address.word);
  PayloadWriter payload;
  writeStateWords(payload, read->addresses);
  reply(*tenant.connection, FrameType::HvStateWords, payload.take());
}

// Migration between hypervisors goes through the tenant: it already speaks
// to both, holds the token, and is the one whose requests must follow the
// engine, while the destination checks the incoming manifest and every
// state write exactly as for any tenant, so no hypervisor trusts another.
// Tenants share the connection token, so marking an engine also takes the
// admin token, or one tenant could send another's engine away. The address
// is only checked for form here, and the tenant's run ends with a clear
// error when it cannot reach it.
void Hypervisor::Impl::markForMigration(Tenant& tenant, const Frame& frame) {
  if (config_.adminToken.empty())
    return refuse(tenant, "migration is off: synergy-hv was started without --admin-token-file");
  auto newline = std::find(frame.payload.begin(), frame.payload.end(), uint8_t('\n'));
  std::string_view presented(reinterpret_cast<const char*>(frame.payload.data()), frame.payload.size());
  presented.remove_prefix(std::min(presented.size(), size_t(newline - frame.payload.begin()) + 1));
  if (newline == frame.payload.end() || !transport::tokensMatch(config_.adminToken, presented))
    return refuse(tenant, "a migration needs this hypervisor's admin token (synergy-hv-ctl --admin-token-file)");
  std::string text = payloadText(std::vector<uint8_t>(frame.payload.begin(), newline));
  size_t space = text.find(' ');
  std::string idText = text.substr(0, space);
  if (space == std::string::npos || idText.empty() || idText.size() > 9 ||
      idText.find_first_not_of("0123456789") != std::string::npos)
    return refuse(tenant, "a migration names \"ENGINE HOST:PORT\"");
  uint32_t id = uint32_t(std::stoul(idText));
  std::string address = text.substr(space + 1), host, error;
  uint16_t port = 0;
  if (!parseHostPort(address, host, port, /*allowAnyPort=*/false, error))
    return refuse(tenant, error);
  auto found = engines_.find(id);
  if (found == engines_.end() || !found->second.instance)
    return refuse(tenant, "no running engine " + idText);
  found->second.leaveFor = address;
  log("engine " + idText + " is to migrate to " + address);
  reply(*tenant.connection, FrameType::HvDone, {});
}

// Answers a request of an engine marked for migration with HvMoveTo instead
// of serving it, once the engine stands between two ticks, so its
// variables are its whole state. The tenant's reads of that state and its
// finalize are served as usual.
bool Hypervisor::Impl::sendAway(Tenant& tenant, HostedEngine& hosted, FrameType request) {
  if (!hosted.leaveFor || request == FrameType::HvGetState || request == FrameType::HvFinalize ||
      !standsBetweenTicks(hosted))
    return false;
  log("engine " + std::to_string(hosted.id) + " leaves for " + *hosted.leaveFor);
  reply(*tenant.connection, FrameType::HvMoveTo, textPayload(*hosted.leaveFor));
  hosted.leaveFor.reset();
  return true;
}

// Every id in a request is checked against the requesting tenant's own
// engine and that engine's manifest before the engine sees it.
void Hypervisor::Impl::serveEngineRequest(Tenant& tenant, Frame& frame) {
  PayloadReader reader(frame.payload);
  uint32_t id = reader.u32();
  HostedEngine* found = tenantsEngine(tenant, id);
  if (!found)
    return;
  HostedEngine& hosted = *found;
  atTickBoundary(hosted);
  if (sendAway(tenant, hosted, frame.type))
    return;
  engine::EngineInstance& instance = *hosted.instance;
  Connection& to = *tenant.connection;
  auto trapReply = [&](FrameType type, PayloadWriter payload, uint32_t task) {
    std::vector<StateWordRecord> words;
    if (task != 0 && task != SYNERGY_ENGINE_UNSETTLED) {
      noteTrap(hosted, task);
      bool complete = false;
      appendTrappedTaskWords(hosted, task, words, complete);
    }
    writeStateWords(payload, words);
    reply(to, type, payload.take());
  };
  switch (frame.type) {
    case FrameType::HvGetState:
    case FrameType::HvSetState: {
      StateWordRecord address;
      address.id = reader.u32();
      address.element = reader.u32();
      address.word = reader.u32();
      bool write = frame.type == FrameType::HvSetState;
      if (auto refused = checkStateWord(hosted, address, write))
        return refuse(tenant, *refused);
      if (!write)
        return reply(to, FrameType::HvStateWord,
                     PayloadWriter().u64(instance.getWord(address.id, address.element, address.word)).take());
      instance.setWord(address.id, address.element, reader.u64(), address.word);
      return reply(to, FrameType::HvDone, {});
    }
    case FrameType::HvEvaluate: {
      uint64_t budget = std::min<uint64_t>(reader.u64(), engine::kMaxEdgesPerTick);
      uint32_t task = instance.evaluate(budget);
      return trapReply(FrameType::HvEvaluated, std::move(PayloadWriter().u32(task).u64(budget)), task);
    }
    case FrameType::HvResume:
      instance.resume();
      return reply(to, FrameType::HvDone, {});
    case FrameType::HvUpdate:
      instance.update();
      return reply(to, FrameType::HvDone, {});
    case FrameType::HvThereAreUpdates:
      return reply(to, FrameType::HvFlag, PayloadWriter().u32(instance.thereAreUpdates() ? 1 : 0).take());
    case FrameType::HvOpenLoop:
      return serveOpenLoop(tenant, hosted, frame.payload);
    case FrameType::HvFinalize:
      log("tenant " + std::to_string(tenant.number) + " finalized engine " + std::to_string(id));
      removeEngine(id);
      return reply(to, FrameType::HvDone, {});
    default:
      return refuse(tenant, std::string("unexpected ") + transport::frameTypeName(frame.type));
  }
}

std::string Hypervisor::Impl::statusReport() const {
  size_t tenants = 0;
  for (const auto& [key, tenant] : tenants_)
    tenants += tenant.engines.empty() ? 0 : 1;
  size_t running = 0;
  for (const auto& [id, hosted] : engines_)
    running += hosted.instance ? 1 : 0;
  auto engineList = [](const std::vector<uint32_t>& ids) {
    std::string list;
    for (uint32_t id : ids)
      list += " " + std::to_string(id);
    return list;
  };
  std::string report = "protocol " + std::to_string(kHypervisorProtocolVersion) + "\n";
  report += "program generation " + std::to_string(programGeneration_) + ": combined program of engines" +
            (programEngines_.empty() ? std::string(" (none)") : engineList(programEngines_)) + "\n";
  report += "combined compiling " +
            (programCompiling_ ? "engines" + engineList(*programCompiling_) : std::string("nothing")) + "\n";
  report += "combined compiles " + std::to_string(programCompiles_) + ", cache hits " +
            std::to_string(programCacheHits_) + "\n";
  char moves[200];
  std::snprintf(moves, sizeof moves, "moves %llu, last pause %.3f ms, longest %.3f ms, longest hold %.3f ms\n",
                static_cast<unsigned long long>(moves_), lastMoveMs_, longestMoveMs_, longestHoldMs_);
  report += moves;
  report += "engine set changes " + std::to_string(generation_) + "\n";
  report += "tenants " + std::to_string(tenants) + "\n";
  report += "engines " + std::to_string(running) + " running, " + std::to_string(engines_.size() - running) +
            " building\n";
  report += "compiles " + std::to_string(compiles_) + ", cache hits " + std::to_string(cacheHits_) + "\n";
  report += "engine requests " + std::to_string(engineRequests_) + ", trapped tasks " + std::to_string(traps_) + "\n";
  for (const auto& [key, tenant] : tenants_) {
    if (tenant.engines.empty())
      continue;
    report += "tenant " + std::to_string(tenant.number) + " " + tenant.connection->peerName() + " requests " +
              std::to_string(tenant.requests) + " refused " + std::to_string(tenant.refusals) + ":";
    for (uint32_t id : tenant.engines) {
      const HostedEngine& hosted = engines_.at(id);
      report += " engine " + std::to_string(id) + " \"" + util::printableText(hosted.manifest->top, "\"\\") + "\"" +
                (!hosted.instance     ? " building"
                 : hosted.generation ? " running in program " + std::to_string(hosted.generation)
                                     : std::string(" running on its own object"));
    }
    report += "\n";
  }
  return report.substr(0, transport::kMaxHvStatusBytes);
}

Hypervisor::Hypervisor(HypervisorConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Hypervisor::~Hypervisor() = default;
bool Hypervisor::listen(const std::string& address, uint16_t port, std::string& error) {
  return impl_->listen(address, port, error);
}
uint16_t Hypervisor::listeningPort() const { return impl_->listeningPort(); }

}  // namespace synergy::hypervisor

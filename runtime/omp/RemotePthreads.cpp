//===- RemotePthreads.cpp - pthreads on other hosts (issue 22, part 3) -----===//
#include "omp/RemotePthreads.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "granule/ProcessEnd.h"
#include "omp/DsmHub.h"
#include "omp/HostSyncService.h"
#include "omp/Pthreads.h"
#include "omp/RemoteThreads.h"
#include "omp/ThreadGroup.h"
#include "omp/ThreadHostSync.h"
#include "util/LittleEndian.h"

namespace synergy::omp {

using granule::Granule;

std::vector<uint8_t> encodePthreadStart(const PthreadStart& start) {
  std::vector<uint8_t> out;
  out.reserve(kPthreadStartBytes);
  util::appendLittleEndian(out, start.copySequence, 8);
  for (uint32_t word : {start.id, start.globalThreadId, start.startRoutine, start.argument,
                        start.stackTop, start.tlsBlock})
    util::appendLittleEndian(out, word, 4);
  return out;
}

bool decodePthreadStart(const uint8_t* data, size_t size, uint64_t memoryBytes,
                        PthreadStart& start, std::string& error) {
  if (size != kPthreadStartBytes) {
    error = "a pthread start of " + std::to_string(size) + " bytes, not " +
            std::to_string(kPthreadStartBytes);
    return false;
  }
  start.copySequence = util::readLittleEndian(data, 8);
  uint32_t words[6];
  for (int i = 0; i < 6; ++i) words[i] = uint32_t(util::readLittleEndian(data + 8 + 4 * i, 4));
  start = PthreadStart{start.copySequence, words[0], words[1], words[2],
                       words[3],           words[4], words[5]};
  if (start.id < 2) {
    error = "a pthread start of thread " + std::to_string(start.id) + ", not a pthread's id";
    return false;
  }
  if (start.stackTop == 0 || start.stackTop > memoryBytes || start.tlsBlock >= memoryBytes) {
    error = "a pthread start whose stack top " + std::to_string(start.stackTop) +
            " or TLS block " + std::to_string(start.tlsBlock) + " lies outside the memory";
    return false;
  }
  return true;
}

// --- The thread host's side ----------------------------------------------

namespace {

// A pthread running on this thread host.
struct HostedPthread {
  std::unique_ptr<Granule> granule;
  std::unique_ptr<RemoteSync> sync;
  pthread_t host{};
};

std::mutex hostedLock;
std::vector<std::unique_ptr<HostedPthread>> hosted;
std::atomic<uint32_t> hostedRunning{0};

[[noreturn]] void endThreadHost(const std::string& message) {
  std::fprintf(stderr, "synergy-run: error: thread host: %s\n", message.c_str());
  std::fflush(nullptr);
  std::_Exit(2);
}

}  // namespace

ThreadHostSync* pthreadThreadHost(Granule& granule) {
  return granule.extension<PthreadSelf>().threadHost;
}

bool forwardedToMainHost(Granule& granule, PthreadFunction function, uint32_t& result,
                         uint32_t a, uint32_t b, uint32_t c) {
  PthreadSelf& self = granule.extension<PthreadSelf>();
  if (!self.threadHost) return false;
  uint64_t value = self.threadHost->pthreadCall(self.id, uint32_t(function), a, b, c);
  if (value > UINT32_MAX) endThreadHost("a pthread call answered " + std::to_string(value));
  result = uint32_t(value);
  return true;
}

void refuseOnThreadHost(Granule& granule, const char* what) {
  if (granule.extension<PthreadSelf>().threadHost)
    endThreadHost(std::string(what) + " in a pthread on a thread host is not supported");
}

bool startPthreadOnThreadHost(Granule& root, ThreadHostSync& sync, const PthreadStart& start) {
  auto thread = std::make_unique<HostedPthread>();
  thread->granule = Granule::spawnThread(root);
  root.extension<ThreadMember>().adopt(*thread->granule, int(start.globalThreadId));
  PthreadSelf& self = thread->granule->extension<PthreadSelf>();
  self.id = start.id;
  self.threadHost = &sync;
  thread->sync = std::make_unique<RemoteSync>(sync, start.id);
  HostedPthread* raw = thread.get();
  ++hostedRunning;
  bool started = startHostThread(raw->host, [raw, &sync, start] {
    Granule& granule = *raw->granule;
    initialiseThreadTls(granule, start.tlsBlock);
    exchangeStackPointer(granule, start.stackTop);
    granule.setMemorySync(raw->sync.get());
    PthreadSelf& me = granule.extension<PthreadSelf>();
    uint32_t result = 0;
    granule::RunResult outcome = granule.run(
        [&] { result = callTableFunctionU32(granule, start.startRoutine, {start.argument}); });
    if (!outcome.returned) {
      if (!me.exited) sync.endJob(start.id, outcome);
      result = me.exitResult;
    }
    // Thread-specific data is refused here, so no destructor is left to run.
    sync.pthreadEnd(start.id, result);
    granule.setMemorySync(nullptr);
    --hostedRunning;
  });
  if (!started) {
    --hostedRunning;
    return false;
  }
  std::lock_guard<std::mutex> guard(hostedLock);
  hosted.push_back(std::move(thread));
  return true;
}

void joinPthreadsOnThreadHost() {
  std::vector<std::unique_ptr<HostedPthread>> threads;
  {
    std::lock_guard<std::mutex> guard(hostedLock);
    threads.swap(hosted);
  }
  for (auto& thread : threads) pthread_join(thread->host, nullptr);
}

bool pthreadsRunOnThreadHost() { return hostedRunning.load() != 0; }

// --- The main host's side -------------------------------------------------

RemotePthreads::RemotePthreads(ThreadHostLink& link, RemoteTeams& teams, MainCopy& main)
    : link_(link), teams_(teams), main_(main), hosts_(link.threadHosts()) {}

RemotePthreads::~RemotePthreads() {
  // Every pthread has ended (PthreadRuntime's destructor), and each
  // service returned with its host's last one, or is still leaving.
  for (Host& host : hosts_)
    if (host.service.joinable()) host.service.detach();
}

void RemotePthreads::fail(uint32_t host, const std::string& message) {
  std::fprintf(stderr, "synergy-run: error: thread host %u: %s\n", host + 1, message.c_str());
  std::fflush(nullptr);
  std::_Exit(2);
}

int RemotePthreads::place(uint32_t localThreads) {
  uint32_t perHost = link_.threadsPerHost();
  // The main thread takes one of the main host's K slots.
  if (localThreads + 1 < perHost) return -1;
  std::lock_guard<std::mutex> guard(lock_);
  for (uint32_t host = 0; host < hosts_.size(); ++host)
    if (hosts_[host].live < perHost) {
      ++hosts_[host].live;
      return int(host);
    }
  return -1;
}

void RemotePthreads::start(Granule& creator, uint32_t host, uint32_t id, Granule& proxy,
                           uint32_t stackTop, uint32_t startRoutine, uint32_t argument) {
  Host& target = hosts_.at(host);
  uint32_t tlsBlock = 0;
  if (!proxy.readGlobal32("__tls_base", tlsBlock)) creator.trap("the module has no __tls_base");
  {
    std::lock_guard<std::mutex> guard(lock_);
    if (!target.copy) {
      target.copy = &teams_.hostCopy(creator, host);
      target.standIn = std::move(main_.createReplicas(creator, 1).front());
    }
    threads_[id] = Thread{host, {}};
    if (!target.serving) {
      // The last service ended with the host's last thread, before any of
      // this one's messages can arrive.
      if (target.service.joinable()) target.service.join();
      target.serving = true;
      target.service = std::thread([this, host] { serveHost(host); });
    }
  }
  HostCopy& copy = *target.copy;
  std::lock_guard<std::mutex> guard(copy.lock);
  std::vector<std::vector<uint8_t>> update;
  std::string error;
  uint64_t version = main_.dsm().version();
  if (!copy.link.ship(main_.memory(), link_.maxPayloadBytes(), update, error)) creator.trap(error);
  target.shippedVersion = version;
  for (const std::vector<uint8_t>& payload : update) noteLaterCopyBytes(payload.size());
  notePthreadSpread();
  PthreadStart share{copy.link.sentSequence(), id,       uint32_t(threadIdOf(proxy)),
                     startRoutine,             argument, stackTop,
                     tlsBlock};
  link_.sendPthread(host, std::move(update), encodePthreadStart(share));
}

void RemotePthreads::serveHost(uint32_t host) {
  Host& served = hosts_[host];
  HostCopy& copy = *served.copy;
  snapshot::DsmReplica& standIn = served.standIn->replica();
  bool released = false;
  for (;;) {
    std::vector<uint8_t> payload;
    ThreadHostLink::FromHost kind = ThreadHostLink::FromHost::Update;
    std::string error;
    if (!link_.nextFromHost(host, payload, kind, error)) fail(host, error);
    if (kind == ThreadHostLink::FromHost::ReductionList)
      fail(host, "a reduction list while it runs pthreads");
    if (kind == ThreadHostLink::FromHost::Update) {
      if (!copy.mergeUpdate(payload, standIn, released, error)) fail(host, error);
      continue;
    }
    SyncRequest request;
    if (!decodeSyncRequest(payload.data(), payload.size(), request, error)) fail(host, error);
    if (syncOpReleases(request.op) != released)
      fail(host, released ? "a copy update followed by an operation that does not release"
                          : "an operation that releases without its copy update");
    released = false;
    noteSynchronisation();
    std::unique_lock<std::mutex> guard(lock_);
    auto thread = threads_.find(request.threadNum);
    if (thread == threads_.end() || thread->second.host != host)
      fail(host, "a request of pthread " + std::to_string(request.threadNum) +
                     ", which it does not run");
    // A pthread asks as itself (waiter 0, SyncMessages.h): its answers say so.
    if (request.waiter != 0)
      fail(host, "a request of pthread " + std::to_string(request.threadNum) + " as waiter " +
                     std::to_string(request.waiter));
    switch (request.op) {
      case SyncOp::Release:
        continue;
      case SyncOp::Atomic:
        // Answered here: no wait, and the stand-in holds the host's writes.
        guard.unlock();
        performAtomic(host, request);
        continue;
      case SyncOp::PthreadCall:
        if (request.arguments[0] == 0 || request.arguments[0] > kLastPthreadFunction ||
            request.arguments[1] > UINT32_MAX || request.arguments[2] > UINT32_MAX ||
            request.arguments[3] > UINT32_MAX)
          fail(host, "a malformed pthread call");
        break;
      case SyncOp::Acquire:
      case SyncOp::LibcLock:
      case SyncOp::LibcUnlock:
      case SyncOp::PthreadEnd:
        break;
      case SyncOp::ThreadExit:
        // As a local thread's exit() or trap ends the process
        // (endProcessFromThread).
        if (request.arguments[0] > 255) fail(host, "a pthread's exit status above 255");
        granule::endProcess(int(request.arguments[0]));
      default:
        fail(host, "a request of operation " + std::to_string(uint32_t(request.op)) +
                       " from a pthread");
    }
    thread->second.requests.push_back(request);
    changed_.notify_all();
    if (request.op == SyncOp::PthreadEnd && --served.live == 0) {
      // Its next thread starts another service (start()).
      served.serving = false;
      return;
    }
  }
}

uint32_t RemotePthreads::serve(uint32_t id, Granule& proxy) {
  std::recursive_mutex& libcLock = proxy.extension<ThreadMember>().group().libcLock();
  int libcDepth = 0;
  uint32_t host = 0;
  uint64_t result = 0;
  for (;;) {
    SyncRequest request;
    {
      std::unique_lock<std::mutex> guard(lock_);
      Thread& thread = threads_.at(id);
      host = thread.host;
      changed_.wait(guard, [&] { return !thread.requests.empty(); });
      request = thread.requests.front();
      thread.requests.pop_front();
      if (request.op == SyncOp::PthreadEnd) {
        threads_.erase(id);
        result = request.arguments[0];
        break;
      }
    }
    switch (request.op) {
      case SyncOp::PthreadCall: {
        uint32_t value = 0;
        // The host's writes are in the hub: the proxy's replica takes them
        // in, makes the call as the thread would and publishes what it wrote.
        granule::RunResult ran = proxy.run([&] {
          acquireMemory(proxy);
          value = runPthreadFunction(proxy, PthreadFunction(request.arguments[0]),
                                     uint32_t(request.arguments[1]),
                                     uint32_t(request.arguments[2]),
                                     uint32_t(request.arguments[3]));
          releaseMemory(proxy);
        });
        if (!ran.returned) endProcessFromThread(ran);
        answer(host, id, value, true);
        break;
      }
      case SyncOp::Acquire:
        answer(host, id, 0, true);
        break;
      case SyncOp::LibcLock:
        libcLock.lock();
        ++libcDepth;
        answer(host, id, 0, true);
        break;
      case SyncOp::LibcUnlock:
        if (libcDepth == 0) fail(host, "libc's unlock without its lock");
        --libcDepth;
        libcLock.unlock();
        break;
      default:
        break;
    }
  }
  // A thread that ended holding libc's lock released it with its end.
  for (; libcDepth > 0; --libcDepth) libcLock.unlock();
  if (result > UINT32_MAX) fail(host, "pthread " + std::to_string(id) + " ended with result " +
                                          std::to_string(result));
  return uint32_t(result);
}

void RemotePthreads::performAtomic(uint32_t host, const SyncRequest& request) {
  uint64_t old = 0;
  std::string error;
  if (!performStandInAtomic(request, hosts_[host].standIn->replica(), main_.exclusive(), old,
                            error))
    fail(host, error);
  answer(host, request.threadNum, old, true);
}

void RemotePthreads::answer(uint32_t host, uint32_t id, uint64_t value, bool acquires) {
  Host& target = hosts_[host];
  HostCopy& copy = *target.copy;
  std::unique_lock<std::mutex> guard(copy.lock);
  std::vector<std::vector<uint8_t>> update;
  std::string error;
  if (acquires) {
    copy.updateMerged.wait(guard, [&] { return copy.link.updateComplete(); });
    uint64_t now = 0;
    std::vector<uint64_t> pages = main_.dsm().pagesChangedSince(target.shippedVersion, now);
    if (!copy.link.shipPages(main_.memory(), pages, link_.maxPayloadBytes(), update, error))
      fail(host, error);
    target.shippedVersion = now;
  }
  for (const std::vector<uint8_t>& payload : update) noteLaterCopyBytes(payload.size());
  link_.sendReply(host, std::move(update), encodeSyncReply(SyncReply{id, acquires, {value, 0}}));
}

}  // namespace synergy::omp

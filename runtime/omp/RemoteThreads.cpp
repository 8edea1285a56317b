//===- RemoteThreads.cpp - OpenMP threads on other hosts (issue 22, part 3) -===//
#include "omp/RemoteThreads.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "omp/DsmTeam.h"
#include "omp/HostSyncService.h"
#include "omp/RemotePthreads.h"
#include "omp/Team.h"
#include "omp/ThreadGroup.h"
#include "omp/ThreadHostSync.h"

namespace synergy::omp {
namespace {

using granule::Granule;

// The stack each remote thread gets, as a local pooled worker's.
constexpr uint32_t kRemoteStackBytes = 1u << 20;

std::atomic<ThreadHostLink*> processLink{nullptr};

std::atomic<uint64_t> regionsSpread{0}, firstCopyBytes{0}, laterCopyBytes{0}, joinBytes{0},
    synchronisations{0}, pthreadsSpread{0}, loopClaims{0}, loopChunks{0};

}  // namespace

RemoteTeamStatistics remoteTeamStatistics() {
  return RemoteTeamStatistics{regionsSpread.load(), firstCopyBytes.load(), laterCopyBytes.load(),
                              joinBytes.load(), synchronisations.load(), pthreadsSpread.load(),
                              loopClaims.load(), loopChunks.load()};
}
void noteLoopClaim(uint64_t chunks) {
  ++loopClaims;
  loopChunks += chunks;
}
void noteLaterCopyBytes(uint64_t bytes) { laterCopyBytes += bytes; }
void noteJoinBytes(uint64_t bytes) { joinBytes += bytes; }
void noteSynchronisation() { ++synchronisations; }
void notePthreadSpread() { ++pthreadsSpread; }

void setThreadHostLink(ThreadHostLink* link) { processLink.store(link, std::memory_order_release); }
ThreadHostLink* threadHostLink() { return processLink.load(std::memory_order_acquire); }

RemoteTeams::RemoteTeams(ThreadHostLink& link) : link_(link) {}
RemoteTeams::~RemoteTeams() = default;

std::vector<std::vector<int>> RemoteTeams::placeThreads(int size) const {
  int perHost = int(link_.threadsPerHost());
  std::vector<std::vector<int>> placement;
  for (uint32_t host = 0; host < link_.threadHosts(); ++host) {
    int first = perHost * int(host + 1);
    if (first >= size) break;
    placement.emplace_back();
    for (int thread = first; thread < std::min(size, first + perHost); ++thread)
      placement.back().push_back(thread);
  }
  return placement;
}

void RemoteTeams::startRegion(Granule& encountering, const Team& team,
                              const std::vector<std::vector<int>>& placement) {
  for (const std::vector<int>& threads : placement)
    for (int thread : threads) {
      if (stacks_.count(thread)) continue;
      ThreadBlock block = allocateThreadBlock(encountering, kRemoteStackBytes);
      stacks_[thread] = StackBlock{block.stackTop, block.tlsBlock,
                                   uint32_t(ompRuntime(encountering).group().nextThreadId())};
    }
  snapshot::LinearMemory& memory = *encountering.linearMemory();
  for (uint32_t host = 0; host < placement.size(); ++host) {
    std::string error;
    if (copies_.size() <= host) {
      copies_.push_back(std::make_unique<HostCopy>());
      if (!copies_.back()->link.start(memory.maxPages(), error)) encountering.trap(error);
    }
    snapshot::CopyLink& copy = copies_[host]->link;
    std::vector<std::vector<uint8_t>> update;
    if (!copy.ship(memory, link_.maxPayloadBytes(), update, error)) encountering.trap(error);
    for (const std::vector<uint8_t>& payload : update)
      (copy.sentSequence() == 1 ? firstCopyBytes : laterCopyBytes) += payload.size();
    RegionShare share;
    share.copySequence = copy.sentSequence();
    share.microtask = team.microtask;
    share.teamSize = uint32_t(team.size);
    share.level = uint32_t(team.level);
    share.activeLevel = uint32_t(team.activeLevel);
    share.icvs = ompThread(encountering).icvs;
    for (int thread : placement[host]) {
      const StackBlock& stack = stacks_.at(thread);
      share.threads.push_back(SharedThread{uint32_t(thread), stack.globalThreadId, stack.stackTop,
                                           stack.tlsBlock});
    }
    share.arguments = team.arguments;
    link_.sendRegion(host, std::move(update), encodeRegionShare(share));
  }
  ++regionsSpread;
}

HostCopy& RemoteTeams::hostCopy(Granule& requester, uint32_t host) {
  while (copies_.size() <= host) {
    std::string error;
    copies_.push_back(std::make_unique<HostCopy>());
    if (!copies_.back()->link.start(requester.linearMemory()->maxPages(), error))
      requester.trap(error);
  }
  return *copies_[host];
}

void RemoteTeams::serveRegion(Granule& encountering, Team& team,
                              const std::vector<std::vector<int>>& placement) {
  std::vector<HostCopy*> copies;
  for (uint32_t host = 0; host < placement.size(); ++host) copies.push_back(copies_[host].get());
  std::map<int, int> globalIds;
  for (const auto& [thread, stack] : stacks_) globalIds[thread] = int(stack.globalThreadId);
  OmpRuntime& runtime = ompRuntime(encountering);
  service_ = std::make_unique<HostSyncService>(link_, team, runtime.locks(),
                                               runtime.group().libcLock(),
                                               runtime.allocators(), std::move(copies),
                                               placement, std::move(globalIds));
}

void RemoteTeams::joinRegion() {
  service_->finish();
  service_.reset();
}

void RemoteTeams::combineReductions(Granule& leader, uint32_t hosts, uint32_t list,
                                    uint32_t combiner) {
  for (uint32_t host = 0; host < hosts; ++host) {
    uint32_t remoteList = service_->takeReductionList(host);
    // The leader's replica pulls the host's private copies, which its
    // stand-in pushed before the host's party arrived at the barrier; the
    // combiner (guest code) bounds-checks every pointer it follows.
    acquireMemory(leader);
    callTableFunction(leader, combiner, {list, remoteList});
  }
}

namespace {

// The threads of one region on a thread host, and their team.
struct HostRegion {
  std::unique_ptr<Team> team;
  RegionShare share;
  std::vector<pthread_t> running;
  std::vector<std::unique_ptr<RemoteSync>> syncs;
  std::atomic<size_t> unfinished{0};

  void joinThreads() {
    for (pthread_t& thread : running) pthread_join(thread, nullptr);
    running.clear();
  }
};

}  // namespace

int serveThreadHost(std::shared_ptr<granule::Module> module, const granule::GranuleConfig& config,
                    MainHostLink& link) {
  // Threads of a region may be running, or waiting for answers that will
  // never come: an error ends the process at once.
  auto fail = [](const std::string& message) -> int {
    std::fprintf(stderr, "synergy-run: error: thread host: %s\n", message.c_str());
    std::fflush(nullptr);
    std::_Exit(2);
  };
  Granule root(module, config);
  std::string error;
  if (!root.instantiate(error)) return fail(error);
  // The copy starts as zeros: the first update carries every non-zero byte
  // of the main memory, the module's data segments included.
  snapshot::LinearMemory& memory = *root.linearMemory();
  std::memset(memory.base(), 0, memory.sizeBytes());
  snapshot::CopyLink copy;
  if (!copy.start(memory.maxPages(), error)) return fail(error);
  ThreadHostSync sync(link, root, copy);
  ThreadMember& rootMember = root.extension<ThreadMember>();
  std::map<uint32_t, std::unique_ptr<Granule>> threads;  // by thread number
  // The region running; its threads end it with their last request.
  std::unique_ptr<HostRegion> region;
  for (;;) {
    std::vector<uint8_t> payload;
    MainHostLink::Message message = link.next(payload);
    if (message == MainHostLink::Message::Closed) {
      // A thread here that ended the job waits for this, as do the others
      // of its region.
      if (sync.jobEnded()) {
        std::fflush(nullptr);
        std::_Exit(0);
      }
      if (region) region->joinThreads();
      // A pthread still running here waits for an answer that cannot come:
      // the main host has ended the job.
      if (pthreadsRunOnThreadHost()) {
        std::fflush(nullptr);
        std::_Exit(0);
      }
      joinPthreadsOnThreadHost();
      return 0;
    }
    if (message == MainHostLink::Message::CopyUpdate) {
      if (!sync.acceptUpdate(payload, error)) return fail(error);
      continue;
    }
    if (message == MainHostLink::Message::SyncReply) {
      if (!sync.deliverReply(payload, error)) return fail(error);
      continue;
    }
    if (message == MainHostLink::Message::PthreadStart) {
      if (region && region->unfinished.load() != 0)
        return fail("a pthread start arrived while a region's threads run");
      PthreadStart start;
      if (!copy.updateComplete() || copy.receivedSequence() == 0)
        return fail("a pthread start arrived before its copy update");
      if (!decodePthreadStart(payload.data(), payload.size(), memory.sizeBytes(), start, error))
        return fail(error);
      if (start.copySequence != copy.receivedSequence())
        return fail("a pthread start names copy update " + std::to_string(start.copySequence) +
                    ", not the last one received");
      if (!startPthreadOnThreadHost(root, sync, start)) return fail("cannot start a host thread");
      continue;
    }
    if (pthreadsRunOnThreadHost())
      return fail("a region share arrived while pthreads run");
    // The main host starts a region only after the last one's threads all
    // ended it. A share while they run would be waited for here, with their
    // answers queued behind it: a hang.
    if (region && region->unfinished.load() != 0)
      return fail("a region share arrived while the last region's threads run");
    if (region) region->joinThreads();
    region = std::make_unique<HostRegion>();
    RegionShare& share = region->share;
    if (!copy.updateComplete() || copy.receivedSequence() == 0)
      return fail("a region share arrived before its copy update");
    if (!decodeRegionShare(payload.data(), payload.size(), memory.sizeBytes(), share, error))
      return fail(error);
    if (share.copySequence != copy.receivedSequence())
      return fail("a region share names copy update " + std::to_string(share.copySequence) +
                  ", not the last one received");
    region->team = std::make_unique<Team>(nullptr, int(share.teamSize), int(share.activeLevel), 0,
                                          0, int(share.threads.size()));
    Team& team = *region->team;
    team.microtask = share.microtask;
    team.arguments = share.arguments;
    team.spansHosts = true;
    team.localMembers = int(share.threads.size());
    team.threadHost = &sync;
    team.reductionLeader = int(share.threads[0].threadNum);
    team.reductionWritesShared = false;
    team.combineAcrossHosts = [&sync](Granule& leader, uint32_t list, uint32_t) {
      sync.reduce(uint32_t(ompThread(leader).at.threadNum), list);
    };
    region->unfinished.store(share.threads.size());
    bool started = true;
    for (size_t i = 0; started && i < share.threads.size(); ++i) {
      const SharedThread& shared = share.threads[i];
      std::unique_ptr<Granule>& granule = threads[shared.threadNum];
      bool fresh = !granule;
      if (fresh) {
        granule = Granule::spawnThread(root);
        rootMember.adopt(*granule, int(shared.globalThreadId));
      }
      Granule* thread = granule.get();
      region->syncs.push_back(std::make_unique<RemoteSync>(sync, shared.threadNum, true));
      RemoteSync* memorySync = region->syncs.back().get();
      HostRegion* current = region.get();
      region->running.emplace_back();
      started = startHostThread(region->running.back(), [current, &sync, shared, thread, fresh,
                                                         memorySync] {
        if (fresh) initialiseThreadTls(*thread, shared.tlsBlock);
        exchangeStackPointer(*thread, shared.stackTop);
        OmpThread& me = ompThread(*thread);
        me.at = TeamPosition{};
        me.at.team = current->team.get();
        me.at.threadNum = int(shared.threadNum);
        me.icvs = current->share.icvs;
        thread->setMemorySync(memorySync);
        runTeamMember(*current->team, me, *thread);
        thread->setMemorySync(nullptr);
        me.at.team = nullptr;
        // The last thread's request ships the host's writes and ends the
        // host's part of the region.
        if (current->unfinished.fetch_sub(1) == 1) sync.finishRegion(shared.threadNum);
      });
      if (!started) region->running.pop_back();
    }
    if (!started) return fail("cannot start a host thread");
  }
}

}  // namespace synergy::omp

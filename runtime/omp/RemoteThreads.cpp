//===- RemoteThreads.cpp - OpenMP threads on other hosts (issue 22, part 3) -===//
#include "omp/RemoteThreads.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "omp/DsmTeam.h"
#include "omp/Team.h"
#include "omp/ThreadGroup.h"
#include "wasm-rt.h"

namespace synergy::omp {
namespace {

using granule::Granule;

// The stack each remote thread gets, as a local pooled worker's.
constexpr uint32_t kRemoteStackBytes = 1u << 20;

std::atomic<ThreadHostLink*> processLink{nullptr};

// Only the process's encountering thread of outermost regions writes these.
std::atomic<uint64_t> regionsSpread{0}, firstCopyBytes{0}, laterCopyBytes{0}, joinBytes{0};

}  // namespace

RemoteTeamStatistics remoteTeamStatistics() {
  return RemoteTeamStatistics{regionsSpread.load(), firstCopyBytes.load(), laterCopyBytes.load(),
                              joinBytes.load()};
}

void setThreadHostLink(ThreadHostLink* link) { processLink.store(link, std::memory_order_release); }
ThreadHostLink* threadHostLink() { return processLink.load(std::memory_order_acquire); }

void refuseAcrossHosts(Granule& granule, const char* construct) {
  OmpThread& me = ompThread(granule);
  if (me.at.team && me.at.team->spansHosts)
    granule.trap(std::string(construct) +
                 " inside a parallel region whose threads span hosts is not supported yet "
                 "(--threads-per-host)");
}

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
      copies_.push_back(std::make_unique<snapshot::CopyLink>());
      if (!copies_.back()->start(memory.maxPages(), error)) encountering.trap(error);
    }
    std::vector<std::vector<uint8_t>> update;
    if (!copies_[host]->ship(memory, link_.maxPayloadBytes(), update, error))
      encountering.trap(error);
    for (const std::vector<uint8_t>& payload : update)
      (copies_[host]->sentSequence() == 1 ? firstCopyBytes : laterCopyBytes) += payload.size();
    RegionShare share;
    share.copySequence = copies_[host]->sentSequence();
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

bool RemoteTeams::mergeHostUpdate(Granule& encountering, DsmTeam& dsm, uint32_t host,
                                  bool expectReduction, uint32_t& list) {
  snapshot::DsmReplica& standIn = dsm.standIn(int(host));
  snapshot::LinearMemory& memory = standIn.memory();
  std::string where = "thread host " + std::to_string(host + 1) + ": ";
  std::string error;
  do {
    std::vector<uint8_t> payload;
    bool isList = false;
    snapshot::CopyUpdate update;
    if (!link_.nextFromHost(host, payload, isList, error)) encountering.trap(where + error);
    if (isList) encountering.trap(where + "a reduction list in the middle of a copy update");
    if (!snapshot::parseCopyUpdate(payload.data(), payload.size(), memory.maxPages(), update,
                                   error))
      encountering.trap(where + error);
    joinBytes += payload.size();
    if (update.pages != memory.pages())
      encountering.trap(where + "its threads grew the memory, which is not supported yet");
    if (!copies_[host]->accept(update, memory, error)) encountering.trap(where + error);
  } while (!copies_[host]->updateComplete());
  if (!standIn.push()) encountering.trap("cannot grow the main memory for a thread host's writes");
  if (!expectReduction) return false;
  std::vector<uint8_t> payload;
  bool isList = false;
  if (!link_.nextFromHost(host, payload, isList, error)) encountering.trap(where + error);
  if (!isList || payload.size() != 4)
    encountering.trap(where + "its reduction update is not followed by a reduction list");
  list = uint32_t(payload[0]) | uint32_t(payload[1]) << 8 | uint32_t(payload[2]) << 16 |
         uint32_t(payload[3]) << 24;
  return true;
}

void RemoteTeams::joinRegion(Granule& encountering, DsmTeam& dsm,
                             const std::vector<std::vector<int>>& placement) {
  uint32_t unused = 0;
  for (uint32_t host = 0; host < placement.size(); ++host)
    mergeHostUpdate(encountering, dsm, host, false, unused);
}

void RemoteTeams::combineReductions(Granule& leader, DsmTeam& dsm,
                                    const std::vector<std::vector<int>>& placement, uint32_t list,
                                    uint32_t combiner) {
  for (uint32_t host = 0; host < placement.size(); ++host) {
    uint32_t remoteList = 0;
    mergeHostUpdate(leader, dsm, host, true, remoteList);
    // The leader's replica pulls the host's private copies; the combiner
    // (guest code) bounds-checks every pointer it follows.
    acquireMemory(leader);
    callTableFunction(leader, combiner, {list, remoteList});
  }
}

int serveThreadHost(std::shared_ptr<granule::Module> module, const granule::GranuleConfig& config,
                    MainHostLink& link) {
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "synergy-run: error: thread host: %s\n", message.c_str());
    return 2;
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
  ThreadMember& rootMember = root.extension<ThreadMember>();
  std::map<uint32_t, std::unique_ptr<Granule>> threads;  // by thread number
  for (;;) {
    std::vector<uint8_t> payload;
    MainHostLink::Message message = link.next(payload);
    if (message == MainHostLink::Message::Closed) return 0;
    if (message == MainHostLink::Message::CopyUpdate) {
      snapshot::CopyUpdate update;
      if (!snapshot::parseCopyUpdate(payload.data(), payload.size(), memory.maxPages(), update,
                                     error))
        return fail(error);
      wasm_rt_memory_t* wasmMemory = module->memory(root.instance());
      if (update.pages > wasmMemory->pages &&
          wasm_rt_grow_memory(wasmMemory, uint32_t(update.pages - wasmMemory->pages)) == UINT32_MAX)
        return fail("cannot grow the copy to " + std::to_string(update.pages) + " pages");
      if (!copy.accept(update, memory, error)) return fail(error);
      continue;
    }
    RegionShare share;
    if (!copy.updateComplete() || copy.receivedSequence() == 0)
      return fail("a region share arrived before its copy update");
    if (!decodeRegionShare(payload.data(), payload.size(), memory.sizeBytes(), share, error))
      return fail(error);
    if (share.copySequence != copy.receivedSequence())
      return fail("a region share names copy update " + std::to_string(share.copySequence) +
                  ", not the last one received");
    Team team(nullptr, int(share.teamSize), int(share.activeLevel), 0, 0,
              int(share.threads.size()));
    team.microtask = share.microtask;
    team.arguments = share.arguments;
    team.spansHosts = true;
    team.reductionLeader = int(share.threads.empty() ? 0 : share.threads[0].threadNum);
    team.reductionWritesShared = false;
    team.combineAcrossHosts = [&](Granule&, uint32_t list, uint32_t) {
      std::vector<std::vector<uint8_t>> update;
      std::string shipError;
      if (!copy.ship(memory, link.maxPayloadBytes(), update, shipError)) {
        std::fprintf(stderr, "synergy-run: error: thread host: %s\n", shipError.c_str());
        std::_Exit(2);
      }
      link.sendUpdate(std::move(update), list);
    };
    std::vector<pthread_t> running;
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
      running.emplace_back();
      started = startHostThread(running.back(), [&team, &share, shared, thread, fresh] {
            if (fresh) initialiseThreadTls(*thread, shared.tlsBlock);
            exchangeStackPointer(*thread, shared.stackTop);
            OmpThread& me = ompThread(*thread);
            me.at = TeamPosition{};
            me.at.team = &team;
            me.at.threadNum = int(shared.threadNum);
            me.icvs = share.icvs;
            runTeamMember(team, me, *thread);
            me.at.team = nullptr;
          });
      if (!started) running.pop_back();
    }
    for (pthread_t& thread : running) pthread_join(thread, nullptr);
    if (!started) return fail("cannot start a host thread");
    std::vector<std::vector<uint8_t>> update;
    if (!copy.ship(memory, link.maxPayloadBytes(), update, error)) return fail(error);
    link.sendUpdate(std::move(update), 0);
  }
}

}  // namespace synergy::omp

//===- RemoteThreads.h - OpenMP threads on other hosts (issue 22, part 3) --===//
//
// A job submitted with --threads-per-host K runs main() on its first host
// and keeps the other hosts of its claim as thread hosts. An outermost
// parallel region of more than K threads runs threads 0..K-1 here and hands
// each further block of K thread numbers to one thread host:
//
//  - the main host allocates the remote threads' stacks and TLS blocks once,
//    with the guest's malloc (a thread host never runs it: two heaps would
//    diverge), ships each thread host the bytes its copy of the memory lacks
//    (snapshot/CopyLink.h: the whole memory the first time, diffs after
//    that) and a RegionShare (omp/RegionShare.h);
//  - the team runs on --dsm replicas here, with one extra replica per thread
//    host standing in for that host's threads;
//  - a thread host runs its threads on its copy, then ships back what they
//    wrote; at the join the main host writes that into the stand-in replica
//    and pushes it, so it merges into the main memory exactly as a local
//    thread's diff does.
//
// Every synchronisation inside such a region is carried between hosts, as
// --dsm carries it between replicas: barriers, criticals, locks, atomics,
// single and copyprivate, dynamic, guided and ordered loops, and libc's
// lock (omp/ThreadHostSync.h on a thread host, omp/HostSyncService.h on the
// main host, omp/SyncMessages.h between them). Reductions (__kmpc_reduce,
// with the combiner the compiler generated) work across hosts: each thread
// host folds its threads' private copies into those of its first thread,
// ships its writes so far (a copy update, so the private copies travel with
// them) and the address of that thread's list; the main host's thread 0,
// after folding its local threads', applies the combiner to each remote
// list, then writes the shared variables as on one host. Explicit tasks run
// on the host that created them; a barrier opens only once every host's
// tasks are done (omp/Tasking.h). A team nested in it on a thread host runs
// on that host's own threads and copy (omp/ThreadHostSync.h). A thread
// host's threads may grow the memory: malloc runs under libc's lock, which
// the main host grants, so there is one heap, and the growth travels with
// the host's next update into its stand-in replica and on into the main
// copy.
//
// The transport is the cluster layer's (cluster/ThreadHostLink.h); the
// runtime only sees these two interfaces, one per side.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "granule/Granule.h"
#include "omp/RegionShare.h"
#include "snapshot/CopyLink.h"

namespace synergy::omp {

class HostSyncService;
class Team;
struct HostCopy;

// The main host's side of the link to its thread hosts.
class ThreadHostLink {
 public:
  virtual ~ThreadHostLink() = default;
  virtual uint32_t threadsPerHost() const = 0;
  virtual uint32_t threadHosts() const = 0;
  virtual uint64_t maxPayloadBytes() const = 0;
  // Whether pthreads may run on thread hosts (omp/RemotePthreads.h): not in
  // a program with OpenMP regions, which a pthread there could not start.
  virtual bool spreadsPthreads() const = 0;
  // Sends thread host `host` (0-based) a copy update, then a region share.
  virtual void sendRegion(uint32_t host, std::vector<std::vector<uint8_t>> copyUpdate,
                          std::vector<uint8_t> share) = 0;
  // Sends thread host `host` a copy update, then a pthread to run
  // (omp/RemotePthreads.h).
  virtual void sendPthread(uint32_t host, std::vector<std::vector<uint8_t>> copyUpdate,
                           std::vector<uint8_t> start) = 0;
  // What a thread host sends, in order: copy updates of its threads'
  // writes, each followed by the reduction list or the synchronisation
  // request it releases, and requests that release nothing.
  enum class FromHost { Update, ReductionList, SyncRequest };
  // Blocks for the next message of `host`. False with `error` when the host
  // is gone.
  virtual bool nextFromHost(uint32_t host, std::vector<uint8_t>& payload, FromHost& kind,
                            std::string& error) = 0;
  // Answers a request of one of `host`'s threads, after a copy update when
  // the answer acquires.
  virtual void sendReply(uint32_t host, std::vector<std::vector<uint8_t>> copyUpdate,
                         std::vector<uint8_t> reply) = 0;
};

// The thread host's side: what the main host sends, in order.
class MainHostLink {
 public:
  enum class Message { CopyUpdate, RegionShare, SyncReply, PthreadStart, Closed };
  virtual ~MainHostLink() = default;
  virtual uint64_t maxPayloadBytes() const = 0;
  virtual Message next(std::vector<uint8_t>& payload) = 0;
  // A copy update of this host's writes; with `reductionList` (nonzero)
  // followed by that address, for the main host's reduction.
  virtual void sendUpdate(std::vector<std::vector<uint8_t>> payloads, uint32_t reductionList) = 0;
  // A synchronisation request, after a copy update (`payloads`, empty when
  // the request releases nothing).
  virtual void sendRequest(std::vector<std::vector<uint8_t>> payloads,
                           std::vector<uint8_t> request) = 0;
};

// Totals of this process's regions that spanned hosts (what a thread job's
// first part prints for SYNERGY_DSM_STATS=1): payload bytes of the copy
// updates sent, the first one per host apart (later ones include the
// answers that acquire), of the updates received, and the synchronisation
// requests the thread hosts sent; the pthreads started on thread hosts
// (omp/RemotePthreads.h), whose traffic the other totals include; and the
// thread hosts' claims of dynamic and guided loop chunks that found some
// (each a round trip) with the chunks they took.
struct RemoteTeamStatistics {
  uint64_t regions = 0;
  uint64_t firstCopyBytes = 0;
  uint64_t laterCopyBytes = 0;
  uint64_t joinBytes = 0;
  uint64_t synchronisations = 0;
  uint64_t pthreads = 0;
  uint64_t loopClaims = 0;
  uint64_t loopChunks = 0;
};
RemoteTeamStatistics remoteTeamStatistics();
void noteLaterCopyBytes(uint64_t bytes);
void noteJoinBytes(uint64_t bytes);
void noteSynchronisation();
void notePthreadSpread();
void noteLoopClaim(uint64_t chunks);

// Set once, before main() runs, by a job part that has thread hosts.
void setThreadHostLink(ThreadHostLink* link);
ThreadHostLink* threadHostLink();

// The main host's regions that span hosts, owned by the OmpRuntime.
class RemoteTeams {
 public:
  explicit RemoteTeams(ThreadHostLink& link);
  ~RemoteTeams();

  // Which thread numbers of a team of `size` run on each thread host
  // (empty when the team fits here); the rest run here.
  std::vector<std::vector<int>> placeThreads(int size) const;
  // Before the team's replicas exist: allocates the remote threads' stacks
  // (first time), then ships each thread host its copy update and share.
  void startRegion(granule::Granule& encountering, const Team& team,
                   const std::vector<std::vector<int>>& placement);
  // Once the team's replicas exist: serves the thread hosts' requests.
  void serveRegion(granule::Granule& encountering, Team& team,
                   const std::vector<std::vector<int>>& placement);
  // After the local threads left: waits until every thread host's writes
  // are merged through its stand-in replica in the team's DsmTeam.
  void joinRegion();
  // The main host's reduction leader, its local threads folded into `list`:
  // folds in every thread host's partial result.
  void combineReductions(granule::Granule& leader, uint32_t hosts, uint32_t list,
                         uint32_t combiner);
  // The link to thread host `host`'s copy, which pthreads started there
  // share with regions (omp/RemotePthreads.h); made by `requester` (trapped
  // on failure) when no region has used it yet.
  HostCopy& hostCopy(granule::Granule& requester, uint32_t host);

 private:
  struct StackBlock {
    uint32_t stackTop = 0;
    uint32_t tlsBlock = 0;
    uint32_t globalThreadId = 0;
  };

  ThreadHostLink& link_;
  std::vector<std::unique_ptr<HostCopy>> copies_;
  std::map<int, StackBlock> stacks_;  // by thread number
  std::unique_ptr<HostSyncService> service_;  // of the region running
};

// A thread host's whole job: instantiates `module`, then runs the threads
// of every region the main host shares until the link closes. Returns the
// process's exit status; a refused message ends it with a one-line error.
int serveThreadHost(std::shared_ptr<granule::Module> module, const granule::GranuleConfig& config,
                    MainHostLink& link);

}  // namespace synergy::omp

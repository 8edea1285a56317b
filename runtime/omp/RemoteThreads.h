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
// Reductions (__kmpc_reduce, with the combiner the compiler generated) work
// across hosts: each thread host folds its threads' private copies into
// those of its first thread, ships its writes so far (a copy update, so the
// private copies travel with them) and the address of that thread's list;
// the main host's thread 0, after folding its local threads', merges each
// such update through the host's stand-in replica, pulls it, and applies
// the combiner to the remote list, then writes the shared variables as on
// one host. Other synchronisation inside such a region (barriers,
// criticals, locks, single, dynamic loops) is not carried between hosts
// yet: a thread of a team that spans hosts that reaches one traps with a
// clear error (refuseAcrossHosts), on either side.
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

class DsmTeam;
class Team;

// The main host's side of the link to its thread hosts.
class ThreadHostLink {
 public:
  virtual ~ThreadHostLink() = default;
  virtual uint32_t threadsPerHost() const = 0;
  virtual uint32_t threadHosts() const = 0;
  virtual uint64_t maxPayloadBytes() const = 0;
  // Sends thread host `host` (0-based) a copy update, then a region share.
  virtual void sendRegion(uint32_t host, std::vector<std::vector<uint8_t>> copyUpdate,
                          std::vector<uint8_t> share) = 0;
  // Blocks for the next message of `host`: a payload of a copy update of its
  // threads' writes (`reductionList` false), or the 4-byte address of its
  // reduction list, which follows such an update (true). False with `error`
  // when the host is gone.
  virtual bool nextFromHost(uint32_t host, std::vector<uint8_t>& payload, bool& reductionList,
                            std::string& error) = 0;
};

// The thread host's side: what the main host sends, in order.
class MainHostLink {
 public:
  enum class Message { CopyUpdate, RegionShare, Closed };
  virtual ~MainHostLink() = default;
  virtual uint64_t maxPayloadBytes() const = 0;
  virtual Message next(std::vector<uint8_t>& payload) = 0;
  // A copy update of this host's writes; with `reductionList` (nonzero)
  // followed by that address, for the main host's reduction.
  virtual void sendUpdate(std::vector<std::vector<uint8_t>> payloads, uint32_t reductionList) = 0;
};

// Totals of this process's regions that spanned hosts (what a thread job's
// first part prints for SYNERGY_DSM_STATS=1): payload bytes of the copy
// updates sent, the first one per host apart, and of the join updates
// received.
struct RemoteTeamStatistics {
  uint64_t regions = 0;
  uint64_t firstCopyBytes = 0;
  uint64_t laterCopyBytes = 0;
  uint64_t joinBytes = 0;
};
RemoteTeamStatistics remoteTeamStatistics();

// Set once, before main() runs, by a job part that has thread hosts.
void setThreadHostLink(ThreadHostLink* link);
ThreadHostLink* threadHostLink();

// Traps `granule` when its team spans hosts: `construct` is not carried
// between hosts yet.
void refuseAcrossHosts(granule::Granule& granule, const char* construct);

// The main host's regions that span hosts, owned by the OmpRuntime.
class RemoteTeams {
 public:
  explicit RemoteTeams(ThreadHostLink& link) : link_(link) {}

  // Which thread numbers of a team of `size` run on each thread host
  // (empty when the team fits here); the rest run here.
  std::vector<std::vector<int>> placeThreads(int size) const;
  // Before the team's replicas exist: allocates the remote threads' stacks
  // (first time), then ships each thread host its copy update and share.
  void startRegion(granule::Granule& encountering, const Team& team,
                   const std::vector<std::vector<int>>& placement);
  // After the local threads left: merges each thread host's writes through
  // its stand-in replica in `dsm`.
  void joinRegion(granule::Granule& encountering, DsmTeam& dsm,
                  const std::vector<std::vector<int>>& placement);
  // The main host's reduction leader, its local threads folded into `list`:
  // folds in every thread host's partial result.
  void combineReductions(granule::Granule& leader, DsmTeam& dsm,
                         const std::vector<std::vector<int>>& placement, uint32_t list,
                         uint32_t combiner);

 private:
  struct StackBlock {
    uint32_t stackTop = 0;
    uint32_t tlsBlock = 0;
    uint32_t globalThreadId = 0;
  };
  // Takes `host`'s next copy update into its stand-in replica and pushes it;
  // returns whether a reduction list followed (its address in `list`).
  bool mergeHostUpdate(granule::Granule& encountering, DsmTeam& dsm, uint32_t host,
                       bool expectReduction, uint32_t& list);

  ThreadHostLink& link_;
  std::vector<std::unique_ptr<snapshot::CopyLink>> copies_;
  std::map<int, StackBlock> stacks_;  // by thread number
};

// A thread host's whole job: instantiates `module`, then runs the threads
// of every region the main host shares until the link closes. Returns the
// process's exit status; a refused message ends it with a one-line error.
int serveThreadHost(std::shared_ptr<granule::Module> module, const granule::GranuleConfig& config,
                    MainHostLink& link);

}  // namespace synergy::omp

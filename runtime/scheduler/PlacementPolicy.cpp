//===- PlacementPolicy.cpp - Which host a job goes to ----------------------===//
//
// This file implements the binpack, spread, locality and compact policies
// of PlacementPolicy.h. Hosts arrive sorted by id (ClusterState::hosts), and a
// strict comparison keeps the first of equals, which is the tie-break.
//
//===----------------------------------------------------------------------===//
#include "scheduler/PlacementPolicy.h"

#include <algorithm>
#include <map>
#include <set>

namespace synergy::scheduler {

namespace {

bool fits(const cluster::HostRecord& host, unsigned ranks) {
  return !host.draining && host.freeSlots >= ranks;
}

// The fitting host that `better` ranks first among those `eligible` accepts.
template <typename Eligible, typename Better>
std::optional<std::string> bestHost(const std::vector<cluster::HostRecord>& hosts,
                                    unsigned ranks, Eligible eligible, Better better) {
  const cluster::HostRecord* best = nullptr;
  for (const cluster::HostRecord& host : hosts)
    if (fits(host, ranks) && eligible(host) && (!best || better(host, *best))) best = &host;
  if (!best) return std::nullopt;
  return best->id;
}

bool fewerFree(const cluster::HostRecord& a, const cluster::HostRecord& b) {
  return a.freeSlots < b.freeSlots;
}

bool anyHost(const cluster::HostRecord&) { return true; }

std::vector<HostShare> inHostOrder(std::map<std::string, unsigned> shares) {
  std::vector<HostShare> placement;
  for (const auto& [id, ranks] : shares) placement.push_back({id, ranks});
  return placement;
}

// The fewest hosts: those with the most free slots first.
std::vector<HostShare> fillFewestHosts(const std::vector<cluster::HostRecord>& hosts,
                                       unsigned ranks) {
  std::vector<const cluster::HostRecord*> order;
  for (const cluster::HostRecord& host : hosts)
    if (!host.draining && host.freeSlots > 0) order.push_back(&host);
  std::stable_sort(order.begin(), order.end(),
                   [](const cluster::HostRecord* a, const cluster::HostRecord* b) {
                     return a->freeSlots > b->freeSlots;
                   });
  std::map<std::string, unsigned> shares;
  unsigned left = ranks;
  for (const cluster::HostRecord* host : order) {
    if (left == 0) break;
    unsigned taken = std::min(left, host->freeSlots);
    shares[host->id] = taken;
    left -= taken;
  }
  if (left > 0) return {};
  return inHostOrder(std::move(shares));
}

// Each rank in turn to the host with the most slots still free.
std::vector<HostShare> balanceOverHosts(const std::vector<cluster::HostRecord>& hosts,
                                        unsigned ranks) {
  std::vector<std::pair<std::string, unsigned>> freeLeft;
  for (const cluster::HostRecord& host : hosts)
    if (!host.draining && host.freeSlots > 0) freeLeft.push_back({host.id, host.freeSlots});
  std::map<std::string, unsigned> shares;
  for (unsigned rank = 0; rank < ranks; ++rank) {
    auto most = std::max_element(freeLeft.begin(), freeLeft.end(),
                                 [](const auto& a, const auto& b) {
                                   return a.second < b.second ||
                                          (a.second == b.second && a.first > b.first);
                                 });
    if (most == freeLeft.end() || most->second == 0) return {};
    --most->second;
    ++shares[most->first];
  }
  return inHostOrder(std::move(shares));
}

// `hosts` with the slots of the job placed as `current` free again: what a
// running job's new placement can use.
std::vector<cluster::HostRecord> withJobSlotsFree(std::vector<cluster::HostRecord> hosts,
                                                  const std::vector<HostShare>& current) {
  for (cluster::HostRecord& host : hosts)
    for (const HostShare& share : current)
      if (share.hostId == host.id)
        host.freeSlots = std::min(host.slots, host.freeSlots + share.ranks);
  return hosts;
}

unsigned ranksOf(const std::vector<HostShare>& shares) {
  unsigned ranks = 0;
  for (const HostShare& share : shares) ranks += share.ranks;
  return ranks;
}

// A running job spread over hosts, all on the host `policy` picks for it
// now; empty when it is on one host already or no host has the room.
std::vector<HostShare> gatherOnOneHost(const PlacementPolicy& policy,
                                       const std::vector<cluster::HostRecord>& hosts,
                                       const std::vector<cluster::JobRecord>& running,
                                       const std::string& app,
                                       const std::vector<HostShare>& current) {
  if (current.size() < 2) return {};
  unsigned ranks = ranksOf(current);
  if (auto host = policy.chooseHost(withJobSlotsFree(hosts, current), running, app, ranks))
    return {{*host, ranks}};
  return {};
}

class BinPackPolicy : public PlacementPolicy {
 public:
  std::optional<std::string> chooseHost(const std::vector<cluster::HostRecord>& hosts,
                                        const std::vector<cluster::JobRecord>&,
                                        const std::string&, unsigned ranks) const override {
    return bestHost(hosts, ranks, anyHost, fewerFree);
  }
  std::vector<HostShare> placeRanks(const std::vector<cluster::HostRecord>& hosts,
                                    const std::vector<cluster::JobRecord>& running,
                                    const std::string& app, unsigned ranks) const override {
    if (auto host = chooseHost(hosts, running, app, ranks)) return {{*host, ranks}};
    return fillFewestHosts(hosts, ranks);
  }
  std::vector<HostShare> placeRunningJob(const std::vector<cluster::HostRecord>& hosts,
                                         const std::vector<cluster::JobRecord>& running,
                                         const std::string& app,
                                         const std::vector<HostShare>& current) const override {
    return gatherOnOneHost(*this, hosts, running, app, current);
  }
};

// Binpack's placement; a running job goes onto fewer hosts whenever they
// can hold it, a step at a time if need be.
class CompactPolicy final : public BinPackPolicy {
 public:
  std::vector<HostShare> placeRunningJob(const std::vector<cluster::HostRecord>& hosts,
                                         const std::vector<cluster::JobRecord>& running,
                                         const std::string& app,
                                         const std::vector<HostShare>& current) const override {
    if (current.size() < 2) return {};
    if (auto whole = gatherOnOneHost(*this, hosts, running, app, current); !whole.empty())
      return whole;
    std::vector<HostShare> fewer = fillFewestHosts(withJobSlotsFree(hosts, current),
                                                   ranksOf(current));
    if (fewer.empty() || fewer.size() >= current.size()) return {};
    return fewer;
  }
};

class SpreadPolicy final : public PlacementPolicy {
 public:
  std::optional<std::string> chooseHost(const std::vector<cluster::HostRecord>& hosts,
                                        const std::vector<cluster::JobRecord>&,
                                        const std::string&, unsigned ranks) const override {
    return bestHost(hosts, ranks, anyHost,
                    [](const cluster::HostRecord& a, const cluster::HostRecord& b) {
                      return a.freeSlots > b.freeSlots;
                    });
  }
  std::vector<HostShare> placeRanks(const std::vector<cluster::HostRecord>& hosts,
                                    const std::vector<cluster::JobRecord>&, const std::string&,
                                    unsigned ranks) const override {
    return balanceOverHosts(hosts, ranks);
  }
  std::vector<HostShare> placeRunningJob(const std::vector<cluster::HostRecord>&,
                                         const std::vector<cluster::JobRecord>&,
                                         const std::string&,
                                         const std::vector<HostShare>&) const override {
    return {};
  }
};

class LocalityPolicy final : public PlacementPolicy {
 public:
  std::optional<std::string> chooseHost(const std::vector<cluster::HostRecord>& hosts,
                                        const std::vector<cluster::JobRecord>& running,
                                        const std::string& app, unsigned ranks) const override {
    std::set<std::string> runningApp;
    for (const cluster::JobRecord& job : running)
      if (job.app == app) runningApp.insert(job.host);
    if (auto host = bestHost(
            hosts, ranks,
            [&](const cluster::HostRecord& host) { return runningApp.count(host.id) > 0; },
            fewerFree))
      return host;
    return bestHost(hosts, ranks, anyHost, fewerFree);
  }
  std::vector<HostShare> placeRanks(const std::vector<cluster::HostRecord>& hosts,
                                    const std::vector<cluster::JobRecord>& running,
                                    const std::string& app, unsigned ranks) const override {
    if (auto host = chooseHost(hosts, running, app, ranks)) return {{*host, ranks}};
    return fillFewestHosts(hosts, ranks);
  }
  std::vector<HostShare> placeRunningJob(const std::vector<cluster::HostRecord>& hosts,
                                         const std::vector<cluster::JobRecord>& running,
                                         const std::string& app,
                                         const std::vector<HostShare>& current) const override {
    return gatherOnOneHost(*this, hosts, running, app, current);
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> createPlacementPolicy(const std::string& name) {
  if (name == "binpack") return std::make_unique<BinPackPolicy>();
  if (name == "spread") return std::make_unique<SpreadPolicy>();
  if (name == "locality") return std::make_unique<LocalityPolicy>();
  if (name == "compact") return std::make_unique<CompactPolicy>();
  return nullptr;
}

}  // namespace synergy::scheduler

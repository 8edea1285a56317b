//===- PlacementPolicy.cpp - Which host a job goes to ----------------------===//
//
// This file implements the binpack, spread and locality policies of
// PlacementPolicy.h. Hosts arrive sorted by id (ClusterState::hosts), and a
// strict comparison keeps the first of equals, which is the tie-break.
//
//===----------------------------------------------------------------------===//
#include "scheduler/PlacementPolicy.h"

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

class BinPackPolicy final : public PlacementPolicy {
 public:
  std::optional<std::string> chooseHost(const std::vector<cluster::HostRecord>& hosts,
                                        const std::vector<cluster::JobRecord>&,
                                        const std::string&, unsigned ranks) const override {
    return bestHost(hosts, ranks, anyHost, fewerFree);
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
};

}  // namespace

std::unique_ptr<PlacementPolicy> createPlacementPolicy(const std::string& name) {
  if (name == "binpack") return std::make_unique<BinPackPolicy>();
  if (name == "spread") return std::make_unique<SpreadPolicy>();
  if (name == "locality") return std::make_unique<LocalityPolicy>();
  return nullptr;
}

}  // namespace synergy::scheduler

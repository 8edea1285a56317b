//===- PlacementPolicy.h - Which host a job goes to ------------------------===//
//
// A placement policy picks, from the live hosts and the running jobs, the
// host for a job whose ranks all fit on one host:
//
//   binpack   the fitting host with the fewest free slots, so jobs fill few
//             hosts and whole hosts stay free for large jobs (the default)
//   spread    the fitting host with the most free slots, balancing load
//   locality  a fitting host that already runs the same app (same module
//             hash), by binpack among them; otherwise binpack
//
// Ties go to the smaller host id, so a placement is deterministic. The
// interface is one call so that later policies (and background migration
// decisions) can be added beside these.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/ClusterState.h"

namespace synergy::scheduler {

// Some of a job's ranks on one host. A job's shares are in host-id order,
// and take its ranks in that order, consecutive ranks on each host.
struct HostShare {
  std::string hostId;
  unsigned ranks = 0;
  bool operator==(const HostShare&) const = default;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // The id of the host for `ranks` ranks of `app`, or nullopt when no live,
  // undrained host has that many free slots.
  virtual std::optional<std::string> chooseHost(const std::vector<cluster::HostRecord>& hosts,
                                                const std::vector<cluster::JobRecord>& running,
                                                const std::string& app,
                                                unsigned ranks) const = 0;
  // Where the `ranks` ranks of `app` go, possibly over several hosts:
  // binpack and locality keep them on chooseHost()'s host when there is
  // one and otherwise take the hosts with the most free slots until the
  // ranks fit (the fewest hosts); spread gives each rank in turn to the
  // host with the most slots still free. Empty when the live hosts do not
  // have that many free slots.
  virtual std::vector<HostShare> placeRanks(const std::vector<cluster::HostRecord>& hosts,
                                            const std::vector<cluster::JobRecord>& running,
                                            const std::string& app, unsigned ranks) const = 0;
};

// "binpack", "spread" or "locality"; nullptr for any other name.
std::unique_ptr<PlacementPolicy> createPlacementPolicy(const std::string& name);

}  // namespace synergy::scheduler

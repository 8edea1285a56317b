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
//   compact   places as binpack, and wants a running job on fewer hosts as
//             soon as slots free up (below)
//
// Ties go to the smaller host id, so a placement is deterministic.
//
// Besides where a new job goes, a policy answers where it would put a
// running job now (placeRunningJob), which the background scheduler of
// synergyd (MigrationDecisions.h) compares with where the job is:
//
//   binpack   all the job's ranks on the one host binpack picks, once one
//   locality  has the slots (their own chooseHost); never a partial move
//   compact   that too, and otherwise the fewest hosts that hold the ranks
//             whenever that is fewer than the job spans now
//   spread    never: a spread job is where spread wants it, and spreading it
//             wider later would stop the job for a gain spread cannot weigh
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
  // Where the policy would put a running job of `app` placed as `current`
  // (its shares in rank order), were it placed now beside the `running`
  // others: `hosts` as they are, with the slots the job holds counted as
  // free for it. Empty when the policy wants it where it is.
  virtual std::vector<HostShare> placeRunningJob(const std::vector<cluster::HostRecord>& hosts,
                                                 const std::vector<cluster::JobRecord>& running,
                                                 const std::string& app,
                                                 const std::vector<HostShare>& current) const = 0;
};

// "binpack", "spread", "locality" or "compact"; nullptr for any other name.
std::unique_ptr<PlacementPolicy> createPlacementPolicy(const std::string& name);

}  // namespace synergy::scheduler

//===- PartZeroPin.cpp - The host a restart's world rank 0 must run on ----===//
//
// This file implements PartZeroPin.h.
//
//===----------------------------------------------------------------------===//
#include "scheduler/PartZeroPin.h"

#include <algorithm>

namespace synergy::scheduler {

std::optional<std::string> choosePartZeroHost(const std::vector<std::string>& holders,
                                              const std::vector<cluster::HostRecord>& hosts,
                                              const std::string& placedFirst) {
  auto usable = [&](const std::string& holder, bool freeSlot) {
    auto host = std::find_if(hosts.begin(), hosts.end(),
                             [&](const cluster::HostRecord& record) { return record.id == holder; });
    return host != hosts.end() && !host->draining && host->slots > 0 &&
           (!freeSlot || host->freeSlots > 0);
  };
  if (std::find(holders.begin(), holders.end(), placedFirst) != holders.end() &&
      usable(placedFirst, true))
    return placedFirst;
  for (bool freeSlot : {true, false})
    for (const std::string& holder : holders)
      if (usable(holder, freeSlot)) return holder;
  return std::nullopt;
}

void pinPartZero(std::vector<HostShare>& shares, const std::string& host) {
  auto on = std::find_if(shares.begin(), shares.end(),
                         [&](const HostShare& share) { return share.hostId == host; });
  if (on != shares.end()) {
    std::rotate(shares.begin(), on, on + 1);
    return;
  }
  if (--shares.back().ranks == 0) shares.pop_back();
  shares.insert(shares.begin(), {host, 1});
}

}  // namespace synergy::scheduler

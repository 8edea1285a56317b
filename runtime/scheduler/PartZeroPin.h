//===- PartZeroPin.h - The host a restart's world rank 0 must run on ------===//
//
// A checkpoint that only some hosts hold (synergyd --checkpoint-root) is
// resumed by a part 0 on one of them, which reads the file from its own
// directory and sends it to the other parts. The client chooses that host
// each time it tries to place the job, from the hosts as they are then,
// not when it decided to restart: the lost job's part may still have held
// a holder's slot at that moment, and another job may have taken one
// since. The host the placement already gives world rank 0 keeps it when
// it is a holder that is registered, not draining and has a free slot (a
// moved job's placement stays as the move asked); otherwise the first
// such holder (in the record's order: part 0's host, then the mirror's) is
// taken; when none has a free slot, the first that has slots at all, for
// whose slot the job waits its turn (a finished job's may not be back
// yet). Then world rank 0's share goes on it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/ClusterState.h"
#include "scheduler/PlacementPolicy.h"

namespace synergy::scheduler {

// The holder world rank 0 goes on, from `hosts` (the live ones, without
// those the client lost), as said above, `placedFirst` being the host the
// placement gives it; nullopt when none of `holders` is there, undrained,
// with slots.
std::optional<std::string> choosePartZeroHost(const std::vector<std::string>& holders,
                                              const std::vector<cluster::HostRecord>& hosts,
                                              const std::string& placedFirst = {});

// Puts world rank 0 on `host`: its share moves to the front, or, when the
// placement gave it none, the last share gives one rank to a new first
// share there. Its slots are taken as any placement's.
void pinPartZero(std::vector<HostShare>& shares, const std::string& host);

}  // namespace synergy::scheduler

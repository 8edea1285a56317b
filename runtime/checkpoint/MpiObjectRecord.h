//===- MpiObjectRecord.h - a rank's MPI objects, recorded and restored ----===//
//
// What a checkpoint holds of the MPI objects a rank made
// (MpiObjectSection.h): taken from the rank's handle tables while it is
// suspended, and put back into a fresh rank of a resumed job under the
// same handles, so that the handles the guest keeps in its memory name the
// same objects again and the next handles it is given are the ones an
// undisturbed run would get. Communicators are shared by their members, so
// a resumed job rebuilds each once, with its context, before any rank runs
// (collective state starts afresh: at a barrier control point every member
// has finished the same collectives on it). Windows, intercommunicators and
// the other objects RankState::objectsNotCheckpointed names are not
// recorded: a checkpoint taken while one is live is refused by `--resume`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint/CheckpointFile.h"

namespace synergy::mpi {
class RankState;
class World;
struct Communicator;
}

namespace synergy::checkpoint {

MpiObjects captureMpiObjects(const mpi::RankState& rank);
// Whether `objects` can be restored: every datatype node becomes a layout
// whose element kind fits its size. `--resume` checks every rank's before
// anything is applied; false with a one-line `error`.
bool checkMpiObjects(const MpiObjects& objects, std::string& error);
// Whether the ranks' records of each communicator agree on what the
// communicator is (its members, name and topology): a communicator is one
// object shared by its members.
bool checkSharedCommunicators(const std::vector<RankImage>& ranks, std::string& error);

// The communicators of a resumed job by context, built by the first rank
// restored that has a handle to each, and shared by the others.
using ResumedCommunicators = std::map<uint32_t, std::shared_ptr<mpi::Communicator>>;

// Makes `world`, a resumed job's (or one part's of it), draw none of the
// contexts the checkpoint's communicators hold, nor any its hosts had
// drawn in the range `world` draws from (World::resumeContextsBelow); once,
// before its ranks are restored.
void resumeContextDraws(const std::vector<RankImage>& ranks, mpi::World& world);

// Puts `objects` into `rank`, a rank that has made none yet, its
// communicators taken from or added to `communicators`; false with a
// one-line `error` (what the checks above refuse).
bool restoreMpiObjects(const MpiObjects& objects, mpi::RankState& rank,
                       ResumedCommunicators& communicators, std::string& error);

}  // namespace synergy::checkpoint

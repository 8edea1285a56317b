//===- ProcessTable.h - the granules fork() made, and waiting for them -----===//
//
// fork() in a process granule (Faabric, section 3.1): the runtime unwinds the
// caller at the call with Asyncify, copies its suspended memory, globals and
// open files into a new granule, and rewinds both, so the call returns the
// child's id in the parent and 0 in the child. The child runs on a host
// thread of its own in the same process, as a thread granule would, but on
// its own memory: nothing it writes reaches the parent.
//
// The table holds every granule forked in this process with its parent's
// id, so waitpid can find, wait for and reap them. Ids are the runtime's own,
// from 2 up; the granule synergy-run started is 1.
//
// Only synergy-run's single process granule and its children may fork
// (serveFork): a rank of an MPI job or a thread of a team would need a rank
// or a team of its own, so there fork() fails with ENOSYS, and says why on
// stderr.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <memory>

namespace synergy::granule {
class Granule;
class Module;
}  // namespace synergy::granule

namespace synergy::process {

// Serves fork() in `granule`, synergy-run's process granule of `module`, and
// in every granule forked from it, each child on a host thread whose stack
// for guest code is `guestStackBytes`. The granule's suspensions are then
// fork's: it must have no other suspension handler.
void serveFork(std::shared_ptr<granule::Module> module, granule::Granule& granule,
               size_t guestStackBytes);

// Returns once every granule forked in this process has ended, reaped or
// not. synergy-run calls it after its own granule ended: the job's output
// and end are the whole process tree's, as a shell waiting for the job sees.
void waitForForkedProcesses();

}  // namespace synergy::process

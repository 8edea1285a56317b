//===- FilesAcrossHosts.h - MPI-IO on communicators spanning hosts --------===//
//
// A file opened by a communicator whose members sit on several hosts. Each
// host's members open the same path in the same working directory (as on a
// shared file system, which the README asks of a cluster), so every access
// at an explicit offset or an individual file pointer, independent or
// collective, goes straight to the file from the member's own host, and
// the collective calls only agree on their arguments: their members'
// values travel in the locality-aware allgather (gatherFileValues) where
// one host's members compare slots (agreeOnFileValue, fileBarrier, which
// serve both).
//
// What needs one state for the whole file stays refused by name for now:
// the shared file pointer (the *_shared, *_ordered and seek_shared calls)
// and atomic mode. Both need an owner (the host of the file's rank 0) that
// serves fetch-and-add and lock requests from other hosts while its own
// ranks compute, which the link between hosts does not carry yet.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <vector>

#include "mpi/FileHandles.h"

namespace synergy::mpi {

// The agreement in a collective call on `file`: every member posts `value`,
// and `differ` is set when some member posted another. Returns success or
// the error class of the collective.
int agreeOnFileValue(HostCall& call, const OpenFile& file, int64_t value, bool& differ);
// A barrier over the members of communicator handle `commHandle` (a
// file's); returns success or its error class.
int fileBarrier(HostCall& call, int commHandle);

// Every member's `count` values at `mine`, in rank order, into `all`;
// returns success or the error class of the allgather.
int gatherFileValues(HostCall& call, int commHandle, const int64_t* mine, int count,
                     std::vector<int64_t>& all);

// Whether file `file`'s members span hosts.
bool fileSpansHosts(HostCall& call, const OpenFile& file);

// Raises MPI_ERR_UNSUPPORTED_OPERATION through file `fh`'s handler when its
// members span hosts (the calls that need the shared file pointer or
// atomic mode); success otherwise.
int refuseSharedStateAcrossHosts(HostCall& call, int fh, const OpenFile& file);

}  // namespace synergy::mpi

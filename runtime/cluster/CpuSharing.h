//===- CpuSharing.h - Whether a job part's waiting ranks may spin ---------===//
//
// A rank that waits for a message polls before it sleeps (mpi/World.h):
// with a CPU to itself it spins, otherwise it yields between looks. A rank
// of a job spread over hosts mostly waits for frames that its part's
// transport I/O thread has to read first, and where that thread finds no
// free CPU, every spinning rank holds the one it is on until its spin
// budget runs out: on a Linux scheduler that lets the running thread keep
// its slice, each hop of a message then costs the whole budget. This
// happens whenever the threads that have to run outnumber the CPUs: two
// ranks and their I/O thread on a 2-CPU host, and every part of a job
// whose hosts share one machine (several synergyd on one machine, as the
// tests and the cluster bench run them on loopback addresses).
//
// So a part's ranks own their CPUs only when the job's ranks on this
// machine and one I/O thread for each of the job's parts here fit in the
// CPUs this process may use. A part is here when its address is one of
// this machine's: a loopback address, or an address of one of its
// interfaces.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cluster/JobPart.h"

namespace synergy::cluster {

// Whether `address` (an IPv4 or IPv6 literal) belongs to this machine;
// false for anything else.
bool isAddressOfThisMachine(const std::string& address);

// Whether the ranks of `part` may spin while they wait: `partAddresses`
// holds each part's address by part index (an empty one counts as another
// machine's), `usableCpus` the CPUs this process may run on.
bool partRanksOwnCpus(const JobPart& part, const std::vector<std::string>& partAddresses,
                      size_t usableCpus);

// The CPUs this process may run on (its affinity mask).
size_t usableCpuCount();

}  // namespace synergy::cluster

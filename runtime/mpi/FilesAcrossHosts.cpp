//===- FilesAcrossHosts.cpp - MPI-IO on communicators spanning hosts ------===//
//
// Implements FilesAcrossHosts.h: the agreement of a collective MPI-IO call,
// in slots on one host or in messages over several, and the refusal of
// what needs one state for the whole file.
//
//===----------------------------------------------------------------------===//
#include "mpi/FilesAcrossHosts.h"

#include "mpi/CollectiveEngine.h"
#include "mpi/HostCollectives.h"
#include "mpi/MpiAbi.h"

namespace synergy::mpi {

int gatherFileValues(HostCall& call, int commHandle, const int64_t* mine, int count,
                     std::vector<int64_t>& all) {
  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  int64_t block = int64_t(count) * int64_t(sizeof(int64_t));
  all.assign(size_t(call.rank.comm(commHandle)->comm->size()) * size_t(count), 0);
  return allgatherAcrossHosts(call, commHandle, reinterpret_cast<const uint8_t*>(mine),
                              bytes.get(), block, reinterpret_cast<uint8_t*>(all.data()),
                              *bytes, block);
}

int agreeOnFileValue(HostCall& call, const OpenFile& file, int64_t value, bool& differ) {
  differ = false;
  if (usesHostCollectives(call, file.commHandle)) {
    std::vector<int64_t> all;
    if (int error = gatherFileValues(call, file.commHandle, &value, 1, all)) return error;
    for (int64_t each : all) differ |= each != value;
    return abi::kSuccess;
  }
  return runCollective(
      call, file.commHandle, CollectiveKind::FileOperation,
      [&](Contribution& slot) { slot.sendCount = value; },
      [&](std::vector<Contribution>& slots, int) {
        for (const Contribution& slot : slots) differ |= slot.sendCount != value;
        return int(abi::kSuccess);
      },
      CollectiveReads::SlotsOnly);
}

int fileBarrier(HostCall& call, int commHandle) {
  if (usesHostCollectives(call, commHandle)) return barrierAcrossHosts(call, commHandle);
  return runCollective(
      call, commHandle, CollectiveKind::FileOperation, [](Contribution&) {},
      [](std::vector<Contribution>&, int) { return int(abi::kSuccess); },
      CollectiveReads::SlotsOnly);
}

bool fileSpansHosts(HostCall& call, const OpenFile& file) {
  return call.world().spansHosts(*file.shared->comm);
}

int refuseSharedStateAcrossHosts(HostCall& call, int fh, const OpenFile& file) {
  if (!fileSpansHosts(call, file)) return abi::kSuccess;
  return failOnFile(call, fh, abi::kErrUnsupportedOperation,
                    std::string(call.name) +
                        " on a file whose communicator spans hosts is not supported yet (the "
                        "shared file pointer and atomic mode have one owner)");
}

}  // namespace synergy::mpi

//===- DsmTeam.cpp - an OpenMP team on copy-on-write replicas (--dsm) ------===//
#include "omp/DsmTeam.h"

#include <algorithm>

#include "omp/ThreadGroup.h"

namespace synergy::omp {

using granule::Granule;

DsmTeam::DsmTeam(Granule& encountering, int size, MainCopy* shared,
                 const std::vector<int>& remoteThreads, int standIns)
    : encountering_(encountering), main_(shared) {
  if (main_) {
    releaseMemory(encountering);
  } else {
    ownMain_ = std::make_unique<MainCopy>(*encountering.linearMemory());
    main_ = ownMain_.get();
  }
  std::vector<std::unique_ptr<GranuleReplica>> replicas = main_->createReplicas(
      encountering, size_t(size) - remoteThreads.size() + size_t(standIns));
  members_.resize(size_t(size));
  size_t next = 0;
  for (int i = 0; i < size; ++i)
    if (std::find(remoteThreads.begin(), remoteThreads.end(), i) == remoteThreads.end())
      members_[size_t(i)].replica = std::move(replicas[next++]);
  while (next < replicas.size()) standIns_.push_back(std::move(replicas[next++]));
}

DsmTeam::~DsmTeam() = default;

void DsmTeam::enter(int threadNum, Granule& granule) {
  Member& member = members_.at(size_t(threadNum));
  member.previousMemory = granule.linearMemory();
  member.previousSync = granule.memorySync();
  member.replica->bind(granule);
}

void DsmTeam::leave(int threadNum, Granule& granule) {
  Member& member = members_.at(size_t(threadNum));
  member.replica->sync().release();
  if (&granule == &encountering_) {
    granule.rebindMemory(*member.previousMemory);
    granule.setMemorySync(member.previousSync);
    return;
  }
  // A pooled worker waits, running no guest code, until its next team moves
  // it again; the main copy outlives this team, its own replica does not.
  granule.rebindMemory(main_->memory());
  granule.setMemorySync(nullptr);
}

void DsmTeam::join(Granule& encountering) {
  if (!ownMain_) acquireMemory(encountering);
}

}  // namespace synergy::omp

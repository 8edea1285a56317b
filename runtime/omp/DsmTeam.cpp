//===- DsmTeam.cpp - an OpenMP team on copy-on-write replicas (--dsm) ------===//
#include "omp/DsmTeam.h"

#include "granule/WasmRuntime.h"

namespace synergy::omp {

using granule::Granule;

DsmTeam::DsmTeam(Granule& encountering, int size)
    : encountering_(encountering), main_(*encountering.linearMemory()) {
  std::string error;
  auto replicas = main_.createReplicas(size_t(size), error);
  if (replicas.empty()) encountering.trap("--dsm: cannot create replicas: " + error);
  members_.resize(size_t(size));
  for (int i = 0; i < size; ++i) {
    Member& member = members_[size_t(i)];
    member.replica = std::move(replicas[size_t(i)]);
    member.sync = std::make_unique<ReplicaSync>(*member.replica, exclusive_);
    granule::registerLinearMemory(&member.replica->memory());
  }
}

DsmTeam::~DsmTeam() {
  for (Member& member : members_)
    if (member.replica) granule::unregisterLinearMemory(&member.replica->memory());
}

void DsmTeam::enter(int threadNum, Granule& granule) {
  Member& member = members_.at(size_t(threadNum));
  member.previousMemory = granule.linearMemory();
  member.previousSync = granule.memorySync();
  granule.rebindMemory(member.replica->memory());
  granule.setMemorySync(member.sync.get());
}

void DsmTeam::leave(int threadNum, Granule& granule) {
  Member& member = members_.at(size_t(threadNum));
  member.sync->release();
  // A pooled worker's previous memory may be a replica of a team that is
  // gone; it waits on the main copy until its next team moves it again.
  granule.rebindMemory(&granule == &encountering_ ? *member.previousMemory : main_.memory());
  granule.setMemorySync(member.previousSync);
}

}  // namespace synergy::omp

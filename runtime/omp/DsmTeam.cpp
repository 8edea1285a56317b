//===- DsmTeam.cpp - an OpenMP team on copy-on-write replicas (--dsm) ------===//
#include "omp/DsmTeam.h"

#include "omp/ThreadGroup.h"

namespace synergy::omp {

using granule::Granule;

DsmTeam::DsmTeam(Granule& encountering, int size, DsmHub* hub)
    : encountering_(encountering), hub_(hub) {
  std::vector<std::unique_ptr<GranuleReplica>> replicas;
  if (hub_) {
    releaseMemory(encountering);
    replicas = hub_->createReplicas(encountering, size_t(size));
  } else {
    main_ = std::make_unique<snapshot::DsmMain>(*encountering.linearMemory());
    std::string error;
    auto plain = main_->createReplicas(size_t(size), error);
    if (plain.empty()) encountering.trap("--dsm: cannot create replicas: " + error);
    for (auto& replica : plain)
      replicas.push_back(std::make_unique<GranuleReplica>(std::move(replica), exclusive_));
  }
  members_.resize(size_t(size));
  for (int i = 0; i < size; ++i) members_[size_t(i)].replica = std::move(replicas[size_t(i)]);
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
  granule.rebindMemory(hub_ ? hub_->memory() : main_->memory());
  granule.setMemorySync(nullptr);
}

void DsmTeam::join(Granule& encountering) {
  if (hub_) acquireMemory(encountering);
}

}  // namespace synergy::omp

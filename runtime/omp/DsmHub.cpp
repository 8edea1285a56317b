//===- DsmHub.cpp - the main copy pthreads meet in under --dsm -------------===//
#include "omp/DsmHub.h"

#include "granule/WasmRuntime.h"
#include "snapshot/Snapshot.h"

namespace synergy::omp {

using granule::Granule;

GranuleReplica::GranuleReplica(std::unique_ptr<snapshot::DsmReplica> replica,
                       std::recursive_mutex& exclusive)
    : replica_(std::move(replica)), sync_(*replica_, exclusive) {
  granule::registerLinearMemory(&replica_->memory());
}

GranuleReplica::~GranuleReplica() { granule::unregisterLinearMemory(&replica_->memory()); }

void GranuleReplica::bind(Granule& granule) {
  granule.rebindMemory(replica_->memory());
  granule.setMemorySync(&sync_);
}

std::unique_ptr<snapshot::DsmReplica> MainCopy::adoptReplica(snapshot::LinearMemory& memory,
                                                           std::string& error) {
  return main_.adoptReplica(memory, error);
}

DsmHub::DsmHub(Granule& root) {
  snapshot::LinearMemory& rootMemory = *root.linearMemory();
  std::string error;
  std::unique_ptr<snapshot::Snapshot> copy = snapshot::Snapshot::capture(rootMemory, {}, error);
  if (!copy || !memory_.create(0, rootMemory.maxPages(), error))
    root.trap("--dsm: cannot make the pthreads' main copy: " + error);
  if (!copy->restoreInto(memory_)) root.trap("--dsm: cannot map the pthreads' main copy");
  main_ = std::make_unique<MainCopy>(memory_);
  rootReplica_ = main_->adoptReplica(rootMemory, error);
  if (!rootReplica_) root.trap("--dsm: cannot track the main thread's memory: " + error);
  rootSync_ = std::make_unique<ReplicaSync>(*rootReplica_, main_->exclusive());
  root.setMemorySync(rootSync_.get());
}

DsmHub::~DsmHub() = default;

std::vector<std::unique_ptr<GranuleReplica>> MainCopy::createReplicas(Granule& requester,
                                                                     size_t count) {
  std::string error;
  std::vector<std::unique_ptr<snapshot::DsmReplica>> replicas =
      main_.createReplicas(count, error);
  if (replicas.empty()) requester.trap("--dsm: cannot create replicas: " + error);
  std::vector<std::unique_ptr<GranuleReplica>> granuleReplicas;
  for (auto& replica : replicas)
    granuleReplicas.push_back(std::make_unique<GranuleReplica>(std::move(replica), exclusive_));
  return granuleReplicas;
}

}  // namespace synergy::omp

//===- NonblockingCollectives.h - completing MPI_I* collective requests ---===//
//
// A nonblocking collective (MPI_Ibarrier, MPI_Iallreduce, ...) is a request
// of kind Collective: its data moves as point-to-point messages on a
// context of its own, posted when the call starts, and what is left once
// they have all arrived (folding staged contributions into the receive
// buffer) runs when a completion call finds them complete. The completion
// calls (PointToPoint.cpp) reach the schedule only through these three
// functions. ScheduleBuilder and the argument checks below are shared with
// the other collectives built the same way (NeighborCollectives.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mpi/CollectiveEngine.h"
#include "mpi/RankState.h"

namespace synergy::mpi {

// The messages of one nonblocking collective and its local step.
struct CollectiveSchedule {
  int commHandle = 0;
  std::shared_ptr<Communicator> comm;
  // The receives, each of which must complete; sends are copied as they
  // start and need no tracking.
  std::vector<std::shared_ptr<Request>> receives;
  // Contributions received or copied aside for the local step.
  std::vector<std::vector<uint8_t>> staging;
  // Runs once every receive has completed; returns an error class.
  std::function<int(HostCall&)> localStep;
};

// A (buffer, count, datatype) triple, checked.
struct TypedBuffer {
  uint8_t* host = nullptr;
  Layout type;
  int64_t count = 0;
  int typeHandle = 0;
};

// Builds the messages of one nonblocking collective on the calling rank:
// they travel on a context of their own, tagged with the collective's kind
// and its sequence number among this rank's nonblocking collectives on the
// communicator.
class ScheduleBuilder {
 public:
  ScheduleBuilder(HostCall& call, int commHandle, CommHandle& handle, CollectiveKind kind);

  int me() const { return me_; }
  int size() const { return comm_->size(); }
  CollectiveSchedule& schedule() { return *schedule_; }

  // Sends `count` instances of `type` at `data` to member `to`; the data is
  // copied before this returns.
  void send(int to, const uint8_t* data, const Layout& type, int64_t count);
  // Receives member `from`'s contribution into `data`.
  void receive(int from, uint8_t* data, const Layout& type, int64_t count);
  // On an intercommunicator, where send() and receive() address the remote
  // group: the same with member `to` or `from` of the local group, on the
  // intercommunicator's context for messages within a group.
  void sendWithinGroup(int to, const uint8_t* data, const Layout& type, int64_t count);
  void receiveWithinGroup(int from, uint8_t* data, const Layout& type, int64_t count);
  // A buffer for `count` instances of `type`, owned by the schedule; the
  // returned pointer is where instance 0 starts.
  uint8_t* stage(const TypeLayout& type, int64_t count);
  // Copies `count` instances of `type` at `data` into a staged buffer.
  uint8_t* stageCopy(const uint8_t* data, const TypeLayout& type, int64_t count);
  // Hands the schedule to a new request and its handle to the guest; with
  // `requestOut` 0 the collective is a blocking one and completes here.
  uint32_t start(uint32_t requestOut, std::function<int(HostCall&)> localStep = nullptr);

 private:
  void fill(Request& request, Request::Kind kind, int peer, uint8_t* data, const Layout& type,
            int64_t count);

  HostCall& call_;
  std::shared_ptr<CollectiveSchedule> schedule_;
  const Communicator* comm_;
  int me_ = 0;
  int tag_ = 0;
};

// Resolves `count` instances of datatype `typeHandle` at guest `addr`;
// returns 0 or the raised error.
int resolve(HostCall& call, int comm, int64_t addr, int count, int typeHandle, const char* role,
            TypedBuffer& out);
// Block `index` of a v-form's buffer: counts[index] instances of
// `typeHandle`, displs[index] extents after `addr`.
int resolveBlock(HostCall& call, int comm, uint32_t addr, const int32_t* counts,
                 const int32_t* displs, int index, int typeHandle, const char* role,
                 TypedBuffer& out);
// A guest int array of `n` entries; null (after raising) when outside memory.
const int32_t* intArray(HostCall& call, int comm, uint32_t addr, int n, const char* what);

// The local step of a reduction: folds `sources` (staged contributions,
// in rank order) into `count` instances of `out`'s type at out.host.
std::function<int(HostCall&)> foldInto(int op, TypedBuffer out,
                                       std::vector<const uint8_t*> sources);

// Completes `request`, a Collective one, when all its receives have
// completed: runs its local step and marks it complete. Otherwise, or
// when it is complete already, does nothing.
void advanceCollective(HostCall& call, Request& request);

// Waits until the Collective `request` completes; leaves the rank when
// the job was aborted.
void awaitCollective(HostCall& call, Request& request);

// For waiting on several requests: the Collective `request` itself when it
// is complete, otherwise one of its receives that has not completed.
Request* pendingPartOf(Request& request);

}  // namespace synergy::mpi

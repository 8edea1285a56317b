//===- Intercommunicators.h - two groups behind one communicator ----------===//
//
// An intercommunicator joins two disjoint groups. Each group has its own
// Communicator object (one per side), both with the same context: its
// worldRanks are the *remote* group, so that point-to-point code addresses
// remote ranks unchanged, and its rankOfWorld maps the local members to
// their local ranks as well, which is the source rank a receiver on the
// other side matches. IntercommSide holds what only intercommunicators
// have: the local group and two more contexts for the runtime's own
// messages (Intercommunicators.cpp, IntercommCollectives.cpp).
//
// In a job spread over hosts, each host makes its own Communicator objects
// for a new intercommunicator's members there, with the same contents and
// the context one host reserved; every message between members is a
// point-to-point one, which crosses hosts like any other.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mpi/RankState.h"
#include "util/FunctionRef.h"

namespace synergy::mpi {

struct IntercommSide {
  std::vector<int> localWorldRanks;  // local rank -> world rank
  uint32_t collectiveContext = 0;    // collectives' messages between the groups
  uint32_t localContext = 0;         // constructors' messages within the local group
};

// The intercommunicator behind handle `comm`, or null (an intracommunicator
// or an invalid handle).
inline const IntercommSide* intercommOf(HostCall& call, int comm) {
  CommHandle* handle = call.rank.comm(comm);
  return handle ? handle->comm->inter.get() : nullptr;
}

// One round of the runtime's own messages between members of an
// intercommunicator (or, for MPI_Intercomm_create, the two leaders on the
// peer communicator). Every receive is posted before any send starts and
// finish() waits for all of them, so members that send to each other in
// the same round never block each other. Data stays where the caller keeps
// it until finish() returns.
class MessageStep {
 public:
  MessageStep(HostCall& call, std::shared_ptr<Communicator> comm, int commHandle);

  // Sends `bytes` at `data` to world rank `to`, naming this rank `senderRank`.
  void send(uint32_t context, int senderRank, int to, int tag, const uint8_t* data, int64_t bytes);
  // Receives from the member whose sender rank is `from`, into `buffer` of
  // `capacity` bytes. With `received` null the message must fill it
  // exactly; otherwise its length is stored there.
  void receive(uint32_t context, int from, int tag, uint8_t* buffer, int64_t capacity,
               int64_t* received = nullptr);
  // Waits for every message; returns success or the raised error (a message
  // of the wrong length is MPI_ERR_TRUNCATE).
  int finish();

 private:
  struct Outgoing {
    std::shared_ptr<Request> request;
    int to;  // world rank
  };
  struct Expected {
    std::shared_ptr<Request> request;
    int64_t* received;
  };
  HostCall& call_;
  std::shared_ptr<Communicator> comm_;
  int commHandle_;
  std::vector<Outgoing> sends_;
  std::vector<Expected> receives_;
};

// MPI_Comm_dup of intercommunicator `comm`: stores the new handle at
// `newcommOut` and copies the attributes. Returns the raised error or
// success.
int dupIntercomm(HostCall& call, int comm, uint32_t newcommOut);
// MPI_Comm_idup of intercommunicator `comm`, the `sequence`-th nonblocking
// collective this member starts on it: waits for no other member. The
// first member of either group to start it makes both sides of the
// duplicate, and every member picks up its own. Stores the new handle at
// `newcommOut` and copies the attributes. Returns the raised error or
// success.
int idupIntercomm(HostCall& call, int comm, uint32_t sequence, uint32_t newcommOut);
// Whether some member of either group of intercommunicator `comm` runs on
// another host.
bool intercommSpansHosts(const World& world, const Communicator& comm);
// MPI_Comm_idup of intercommunicator `comm` whose members span hosts: a
// nonblocking collective whose one message is the new contexts, from the
// agent (Intercommunicators.cpp) to every other member; each member makes
// its side when that has come, and the handle reaches `newcommOut` when
// the request at `requestOut` completes. Returns the raised error or
// success.
int idupIntercommAcrossHosts(HostCall& call, int comm, uint32_t newcommOut, uint32_t requestOut);

// How many of `worldRanks` run on this host.
int membersHere(const World& world, const std::vector<int>& worldRanks);
// The one Communicator object that the `members` members of a new
// communicator on this host share: the first to arrive makes it with
// `make`, the others pick it up, by context and `side` (a side's first
// world rank, or -1 for an intracommunicator).
std::shared_ptr<Communicator> meetAt(World& world, uint32_t context, int side, int members,
                                     util::FunctionRef<std::shared_ptr<Communicator>()> make);
// MPI_Comm_create of intercommunicator `comm` (MPI-4.0 §7.4.2): `group`
// names members of the local group, the same on each of them. The members
// each group names form the two groups of a new intercommunicator; the
// others, or all when either group named none, get MPI_COMM_NULL.
int createFromIntercomm(HostCall& call, int comm, const Group& group, uint32_t newcommOut);
// MPI_Comm_split of intercommunicator `comm`: each color both groups chose
// makes an intercommunicator between its members in either group; the
// others get MPI_COMM_NULL.
int splitIntercomm(HostCall& call, int comm, int color, int key, uint32_t newcommOut);

// Where a member stands in a rooted collective on an intercommunicator:
// the root (MPI_ROOT), another member of the root's group (MPI_PROC_NULL),
// or a member of the other group, which names the root by its rank there.
enum class Role { Root, Idle, Member };
// Sets `role` from the `root` argument; raises MPI_ERR_ROOT for any other
// value. Returns success or the raised error class.
int roleOf(HostCall& call, int comm, int root, int remoteSize, Role& role);
// MPI_IN_PLACE has no meaning on an intercommunicator: raises MPI_ERR_ARG
// when `addr` is it, naming the buffer's `role`.
int refuseInPlace(HostCall& call, int comm, uint32_t addr, const char* role);

// The collectives on an intercommunicator (MPI-3.1 §5.2.2), with the
// arguments of the MPI function of the same name (IntercommCollectives.cpp).
// Each returns success or the raised error class.
int intercommBarrier(HostCall& call, int comm);
int intercommBcast(HostCall& call, uint32_t buffer, int count, int type, int root, int comm);
int intercommReduce(HostCall& call, uint32_t sendbuf, uint32_t recvbuf, int count, int type,
                    int op, int root, int comm);
int intercommAllreduce(HostCall& call, uint32_t sendbuf, uint32_t recvbuf, int count, int type,
                       int op, int comm);
int intercommGather(HostCall& call, uint32_t sendbuf, int sendcount, int sendtype,
                    uint32_t recvbuf, uint32_t recvcounts, uint32_t displs, int recvcount,
                    int recvtype, int root, int comm, bool varying);
int intercommScatter(HostCall& call, uint32_t sendbuf, uint32_t sendcounts, uint32_t displs,
                     int sendcount, int sendtype, uint32_t recvbuf, int recvcount, int recvtype,
                     int root, int comm, bool varying);
int intercommAllgather(HostCall& call, uint32_t sendbuf, int sendcount, int sendtype,
                       uint32_t recvbuf, uint32_t recvcounts, uint32_t displs, int recvcount,
                       int recvtype, int comm, bool varying);
int intercommAlltoall(HostCall& call, uint32_t sendbuf, uint32_t sendcounts, uint32_t sdispls,
                      int sendcount, int sendtype, uint32_t recvbuf, uint32_t recvcounts,
                      uint32_t rdispls, int recvcount, int recvtype, int comm, bool varying);
// MPI_Reduce_scatter_block when `recvcounts` is 0, MPI_Reduce_scatter
// otherwise.
int intercommReduceScatter(HostCall& call, uint32_t sendbuf, uint32_t recvbuf,
                           uint32_t recvcounts, int recvcount, int type, int op, int comm);

// The nonblocking forms whose schedule on an intercommunicator differs from
// the intracommunicator one (IntercommNonblockingCollectives.cpp), with the
// arguments of the MPI function and the checked `handle` of `comm`. Each
// stores a request at `requestOut` and returns success, or returns the
// raised error class.
uint32_t intercommIbcast(HostCall& call, int comm, CommHandle& handle, uint32_t buffer, int count,
                         int type, int root, uint32_t requestOut);
uint32_t intercommIreduce(HostCall& call, int comm, CommHandle& handle, uint32_t sendbuf,
                          uint32_t recvbuf, int count, int type, int op, int root,
                          uint32_t requestOut);
uint32_t intercommIallreduce(HostCall& call, int comm, CommHandle& handle, uint32_t sendbuf,
                             uint32_t recvbuf, int count, int type, int op, uint32_t requestOut);
// MPI_Igatherv when `varying`, MPI_Igather otherwise.
uint32_t intercommIgather(HostCall& call, int comm, CommHandle& handle, uint32_t sendbuf,
                          int sendcount, int sendtype, uint32_t recvbuf, uint32_t recvcounts,
                          uint32_t displs, int recvcount, int recvtype, int root, bool varying,
                          uint32_t requestOut);
// MPI_Iscatterv when `varying`, MPI_Iscatter otherwise.
uint32_t intercommIscatter(HostCall& call, int comm, CommHandle& handle, uint32_t sendbuf,
                           uint32_t sendcounts, uint32_t displs, int sendcount, int sendtype,
                           uint32_t recvbuf, int recvcount, int recvtype, int root, bool varying,
                           uint32_t requestOut);
// MPI_Ireduce_scatter_block when `recvcounts` is 0, MPI_Ireduce_scatter
// otherwise.
uint32_t intercommIreduceScatter(HostCall& call, int comm, CommHandle& handle, uint32_t sendbuf,
                                 uint32_t recvbuf, uint32_t recvcounts, int recvcount, int type,
                                 int op, uint32_t requestOut);

}  // namespace synergy::mpi

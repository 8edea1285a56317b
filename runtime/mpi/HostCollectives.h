//===- HostCollectives.h - collectives over ranks on several hosts --------===//
//
// The collectives of a communicator whose members sit on several hosts,
// locality-aware as in Faabric (§5.2): the members on one host have one
// leader (their lowest rank); a collective runs a local phase in memory,
// then at most one message from each leader to each other host's leader
// per step, then a local phase again. Messages travel as point-to-point
// messages in a context of their own, so they never match the program's.
//
// Each entry point takes the buffers the single-host collective resolved
// (MPI_IN_PLACE already replaced by the buffer it stands for) and returns
// an error class. Reductions fold in rank order like the single-host
// ones; `typeHandle` is the caller's handle of the datatype, which a
// user-defined op receives. A user-defined op runs on each host's leader,
// in its own guest, on the data that host holds: members' contributions
// are folded where they are, and only partial results cross hosts. In the
// v-forms a member knows only its own counts, so their messages carry the
// size of each block they hold.
//
// The runtime counts the messages each collective kind sends between
// hosts; crossHostMessageReport() lists them, for SYNERGY_MPI_STATS.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi/CollectiveEngine.h"
#include "mpi/RankState.h"

namespace synergy::mpi {

// A buffer cut into one block per member, as the v-forms describe it:
// member i's block is counts[i] instances of `type`, displs[i] extents
// from `base`.
struct MemberBlocks {
  uint8_t* base = nullptr;
  const TypeLayout* type = nullptr;
  const int32_t* counts = nullptr;
  const int32_t* displs = nullptr;

  uint8_t* block(int member) const { return base + int64_t(displs[member]) * type->extent(); }
};

// Whether the collectives on communicator handle `comm` of the calling rank
// run here: its members span hosts. False for an invalid handle (the
// caller reports those).
bool usesHostCollectives(HostCall& call, int comm);

int barrierAcrossHosts(HostCall& call, int comm);
int bcastAcrossHosts(HostCall& call, int comm, uint8_t* buffer, const TypeLayout& type,
                     int64_t count, int root);
// `send` is the rank's contribution (the root's receive buffer when it
// passed MPI_IN_PLACE); `recv` matters at the root only (allreduce: at
// every rank).
int reduceAcrossHosts(HostCall& call, int comm, const uint8_t* send, uint8_t* recv,
                      const TypeLayout& type, int64_t count, int op, int typeHandle, int root);
int allreduceAcrossHosts(HostCall& call, int comm, const uint8_t* send, uint8_t* recv,
                         const TypeLayout& type, int64_t count, int op, int typeHandle);
// A null `send` means MPI_IN_PLACE: the rank's block of `recv` is its
// contribution (gather: at the root; allgather: everywhere).
int gatherAcrossHosts(HostCall& call, int comm, const uint8_t* send, const TypeLayout* sendType,
                      int64_t sendCount, uint8_t* recv, const TypeLayout* recvType,
                      int64_t recvCount, int root);
// A null `send` means MPI_IN_PLACE at the root. `recv` matters at the root
// only.
int gathervAcrossHosts(HostCall& call, int comm, const uint8_t* send, const TypeLayout* sendType,
                       int64_t sendCount, const MemberBlocks& recv, int root);
int allgatherAcrossHosts(HostCall& call, int comm, const uint8_t* send,
                         const TypeLayout* sendType, int64_t sendCount, uint8_t* recv,
                         const TypeLayout& recvType, int64_t recvCount);
// A null `send` means MPI_IN_PLACE. Member i's block is recvCounts[i]
// instances at displacement displs[i] of `recv`.
int allgathervAcrossHosts(HostCall& call, int comm, const uint8_t* send,
                          const TypeLayout* sendType, int64_t sendCount, uint8_t* recv,
                          const TypeLayout& recvType, const int32_t* recvCounts,
                          const int32_t* displs);
// A null `recv` means MPI_IN_PLACE at the root.
int scatterAcrossHosts(HostCall& call, int comm, const uint8_t* send, const TypeLayout* sendType,
                       int64_t sendCount, uint8_t* recv, const TypeLayout* recvType,
                       int64_t recvCount, int root);
// `send` matters at the root only; a null `recv` means MPI_IN_PLACE there.
int scattervAcrossHosts(HostCall& call, int comm, const MemberBlocks& send, uint8_t* recv,
                        const TypeLayout* recvType, int64_t recvCount, int root);
// A null `send` means MPI_IN_PLACE: `recv` holds the blocks to send.
int alltoallAcrossHosts(HostCall& call, int comm, const uint8_t* send,
                        const TypeLayout* sendType, int64_t sendCount, uint8_t* recv,
                        const TypeLayout& recvType, int64_t recvCount);
// In place, `send` describes `recv`'s blocks: they are all packed before
// any block arrives.
int alltoallvAcrossHosts(HostCall& call, int comm, const MemberBlocks& send,
                         const MemberBlocks& recv);

// MPI_Reduce_scatter(_block) (`kind`): member i gets counts[i] instances of
// the reduction, which starts after those of the members before it. Each
// host's leader sends each other host's leader only that host's range.
int reduceScatterAcrossHosts(HostCall& call, int comm, CollectiveKind kind, const uint8_t* send,
                             uint8_t* recv, const TypeLayout& type,
                             const std::vector<int64_t>& counts, int op, int typeHandle);
// MPI_Scan, or MPI_Exscan when `exclusive` (rank 0's `recv` untouched).
// Each host's leader sends its host's total to the leaders of the hosts
// after it.
int scanAcrossHosts(HostCall& call, int comm, const uint8_t* send, uint8_t* recv,
                    const TypeLayout& type, int64_t count, int op, int typeHandle,
                    bool exclusive);

// One member's arguments to a communicator constructor.
struct SplitChoice {
  int32_t color;
  int32_t key;
};
// The collective behind the communicator constructors: every member learns
// every member's choice, in rank order, and the contexts of the new
// communicators, one for each distinct color other than MPI_UNDEFINED in
// ascending order, which the host of rank 0 reserves; so every host makes
// the same communicators with the same contexts.
int splitAcrossHosts(HostCall& call, int comm, int color, int key,
                     std::vector<SplitChoice>& choices, std::vector<uint32_t>& contexts);

// MPI_Comm_create_group over members on several hosts (`groupWorldRanks`,
// in group order): the host of the group's first member makes the new
// communicator, and that member sends its context to each member on
// another host, one message each (the call involves only the group's
// members, so no host leader is sure to take part); UINT32_MAX says that
// its host had no contexts left. The messages go in a context of their own
// derived from the parent communicator `comm`, with the call's tag.
void sendGroupContext(HostCall& call, int comm, const std::vector<int>& groupWorldRanks, int tag,
                      uint32_t context);
uint32_t receiveGroupContext(HostCall& call, int comm, int firstWorldRank, int tag);

// "MPI_Allreduce 6, MPI_Bcast 2" for the collective kinds that sent
// messages to other hosts from this process; empty when none did.
std::string crossHostMessageReport();

}  // namespace synergy::mpi

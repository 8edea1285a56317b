//===- SyncMessages.h - synchronisation between a region's hosts -----------===//
//
// Inside a parallel region whose threads span hosts (omp/RemoteThreads.h),
// every synchronisation of a thread on a thread host is decided on the main
// host, where the team's barrier, locks, singles and loops live: the thread
// host sends a SyncRequest (frame OmpSyncRequest) and, for the operations
// that wait for an answer, blocks its thread until the SyncReply (frame
// OmpSyncReply) arrives. Memory follows the --dsm rules: an operation that
// releases is preceded by a copy update of the host's writes (an
// OmpJoinUpdate, snapshot/CopyLink.h), an answer that acquires by one of
// the main copy's bytes that the host's copy lacks (an OmpCopyUpdate).
//
// Wire forms, little-endian:
//   request: u32 operation, u32 thread number, u64 x 5 arguments,
//            u32 waiter                                           (52 bytes)
//   reply:   u32 thread number, u32 1 when a copy update precedes it,
//            u64 x 2 results, u32 waiter                          (28 bytes)
//
// The waiter names the thread host's thread that waits for the answer
// among those that ask as one thread number: 0 for the thread itself (its
// barriers, worksharing, a pthread's requests), else a number the thread
// host gives each of its OS threads, so that the threads of a team nested
// in the spread team, which ask as the spread thread they descend from, are
// each served and answered on their own (a lock one of them waits for does
// not hold up another's request). The main host echoes it in the answer.
//
// Both are hostile when received: decodeSyncRequest checks the length and
// the operation; the receivers check the thread number against the threads
// the host runs and the update against the operation.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace synergy::omp {

enum class SyncOp : uint32_t {
  Join = 1,             // releases: every thread of the host is done
  Barrier = 2,          // releases; answer acquires, result 0: copyprivate data
  Lock = 3,             // argument 0: key; answer acquires, result 0: depth
  NestLock = 4,         // as Lock, re-entrant
  TestLock = 5,         // as Lock, but answers at once: depth 0 when not taken
  TestNestLock = 6,     //   (and then acquires nothing)
  Unlock = 7,           // releases; argument 0: key; no answer
                        // 8, 9: unused (see kRetiredSyncOps)
  Acquire = 10,         // answer acquires
  Release = 11,         // releases; no answer
  Single = 12,          // argument 0: the single's number; result 0: 1 if taken
  Copyprivate = 13,     // argument 0: the single's data; no answer
  LoopChunk = 14,       // arguments: loop index, -, trip count, kind, chunk;
                        // results: the chunks [begin, end), empty when done
                        // (several whole ones of a dynamic loop,
                        // claimSharedChunks in omp/Team.h)
  OrderedEnter = 15,    // arguments: loop index, iteration, trip, kind, chunk;
                        // answer acquires when it is that iteration's turn
  OrderedLeave = 16,    // releases; as OrderedEnter, passes the turn on
  OrderedSkip = 17,     // as OrderedEnter: waits for the turn, passes it on
  LibcLock = 18,        // the lock around libc (malloc, stdio); answer acquires
  LibcUnlock = 19,      // releases; no answer
  ReductionArrive = 20, // never on the wire: the host's reduction list
                        // arrived; answered when the team's barrier opens
  // The allocators omp_init_allocator makes live in the main host's table
  // (omp/Allocators.h): one handle space and one pool account per job.
  AllocatorCreate = 21,   // arguments: the traits (encodeAllocatorTraits);
                          // result 0: the handle, 0 when none is left
  AllocatorDestroy = 22,  // argument 0: handle; no answer
  AllocatorTraits = 23,   // argument 0: handle; results: the traits, result
                          // 0 is 0 when the handle is no allocator
  PoolReserve = 24,       // arguments: handle, bytes; result 0: 1 if reserved
  PoolRefund = 25,        // arguments: handle, bytes; no answer
  Atomic = 26,  // releases; arguments: address, operand, cmpxchg's replacement,
                // operation | width << 8 (granule/AtomicAccess.h); done on the
                // main copy, the answer acquires; result 0: the old value
  // A pthread on a thread host (omp/RemotePthreads.h): its pthread ids are
  // its thread numbers.
  PthreadCall = 27,  // releases; argument 0: a PthreadFunction, arguments
                     // 1-3: its arguments; done by the thread's proxy on the
                     // main host, the answer acquires; result 0: its value
  PthreadEnd = 28,   // releases; argument 0: the start routine's result;
                     // no answer: the thread has ended
  // A thread on a thread host, a pthread or an OpenMP team's (one of a
  // nested team's as the spread thread it descends from).
  ThreadExit = 29,  // the thread called exit() or trapped: argument 0, the
                    // process's exit status, ends the job; no answer
  // omp_fulfill_event for a detached task the main host created
  // (omp/Tasking.h): releases; argument 0: the event; no answer.
  FulfillEvent = 30,
};
inline constexpr SyncOp kLastSyncOp = SyncOp::FulfillEvent;
// Numbers no request carries: the atomics' lock and unlock, which Atomic
// replaced. A request with one is refused like an unknown operation.
inline constexpr uint32_t kRetiredSyncOps[] = {8, 9};

struct SyncRequest {
  SyncOp op = SyncOp::Join;
  uint32_t threadNum = 0;
  uint64_t arguments[5] = {};
  uint32_t waiter = 0;
};

struct SyncReply {
  uint32_t threadNum = 0;
  bool withUpdate = false;
  uint64_t results[2] = {};
  uint32_t waiter = 0;  // the request's
};

// Whether a request of `op` may carry a waiter other than 0: the requests
// a nested team's thread makes as its spread thread (locks, criticals,
// libc's lock, atomics, memory synchronisation, allocators, its exit).
bool syncOpFromNestedThreads(SyncOp op);


// The wire sizes; transport/FrameTypes.h's limits of the two frames match.
inline constexpr size_t kSyncRequestBytes = 52;
inline constexpr size_t kSyncReplyBytes = 28;

// Whether `op` releases the thread's writes (a copy update precedes it).
bool syncOpReleases(SyncOp op);

std::vector<uint8_t> encodeSyncRequest(const SyncRequest& request);
bool decodeSyncRequest(const uint8_t* data, size_t size, SyncRequest& request,
                       std::string& error);
std::vector<uint8_t> encodeSyncReply(const SyncReply& reply);
bool decodeSyncReply(const uint8_t* data, size_t size, SyncReply& reply, std::string& error);

}  // namespace synergy::omp

//===- RegionShare.h - the threads of a parallel region one other host runs -===//
//
// When a team is larger than the main host's slots (issue 22, part 3), some
// of its threads run on other hosts, on their copy of the main memory
// (snapshot/CopyLink.h: the copy update precedes this message). A
// RegionShare tells such a thread host everything its threads need that is
// not in memory: the outlined function and its shared arguments, the team's
// shape and ICVs, and per thread its number, its global id and its guest
// stack and TLS block. Stacks and TLS blocks are allocated by the main host
// out of the guest heap, so a thread host never runs the guest's malloc on
// its copy (two heaps would diverge); a thread host initialises a TLS block
// from the module's image the first time it is used, and keeps it from one
// region to the next, as threadprivate data requires.
//
// Wire form (the frame OmpRegionShare, transport/FrameTypes.h), all u32
// little-endian:
//
//   sequence of the copy update it follows (u64), microtask, team size,
//   level, active level, the six ICVs (Icvs, in declaration order),
//   thread count T, argument count A,
//   T x (thread number, global thread id, stack top, TLS block),
//   A x shared argument
//
// Received shares are hostile: decodeRegionShare checks the exact length,
// the counts against their limits, that thread numbers ascend and lie in
// 1..team size - 1 (thread 0 is the encountering thread, which stays on the
// main host), and that every stack top and TLS block lies inside the
// memory the copy update announced.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "omp/Team.h"

namespace synergy::omp {

// A thread host runs at most this many threads of one region: as many as
// one host has slots (cluster::kMaxSlotsPerHost).
inline constexpr uint32_t kMaxShareThreads = 4096;
// The outlined function takes two id pointers and then the shared
// arguments; a wasm function takes at most 1000 parameters.
inline constexpr uint32_t kMaxShareArguments = 1000 - 2;
inline constexpr uint64_t kRegionShareHeadBytes = 8 + 4 * 12;
inline constexpr uint64_t kRegionShareThreadBytes = 16;
inline constexpr uint64_t kMaxRegionShareBytes = kRegionShareHeadBytes +
                                                 kMaxShareThreads * kRegionShareThreadBytes +
                                                 kMaxShareArguments * 4;

struct SharedThread {
  uint32_t threadNum = 0;
  uint32_t globalThreadId = 0;
  uint32_t stackTop = 0;
  uint32_t tlsBlock = 0;
};

struct RegionShare {
  uint64_t copySequence = 0;
  uint32_t microtask = 0;
  uint32_t teamSize = 0;
  uint32_t level = 0;
  uint32_t activeLevel = 0;
  Icvs icvs;
  std::vector<SharedThread> threads;
  std::vector<uint32_t> arguments;
};

std::vector<uint8_t> encodeRegionShare(const RegionShare& share);
// Parses and checks `size` bytes against a memory of `memoryBytes` bytes.
// False with a one-line `error` when malformed.
bool decodeRegionShare(const uint8_t* data, size_t size, uint64_t memoryBytes, RegionShare& share,
                       std::string& error);

}  // namespace synergy::omp

//===- LoopClaimsTest.cpp - a thread host's claims of several dynamic chunks
//
// claimSharedChunks hands a thread host consecutive whole chunks of a
// dynamic loop in one claim. Interleaved with single-chunk claims of local
// threads (claimSharedChunk), the claims must cover every iteration exactly
// once, start on chunk boundaries, hold at most 1/(2 x threads) of what was
// left (but at least one chunk), and end in single chunks; a guided loop's
// claim must be the one chunk claimSharedChunk would give.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "omp/Team.h"

namespace synergy::omp {
namespace {

void shape(LoopShare& loop, int kind, uint64_t trip, uint64_t chunk) {
  loop.kind = kind;
  loop.tripCount = trip;
  loop.chunk = chunk;
  loop.nextIteration.store(0);
}

TEST(LoopClaims, DynamicClaimsCoverEveryIterationOnceInWholeChunks) {
  const int threads = 6;
  for (uint64_t trip : {0ull, 1ull, 7ull, 100ull, 4000ull, 100003ull})
    for (uint64_t chunk : {1ull, 3ull, 64ull}) {
      LoopShare loop;
      shape(loop, LoopShare::kDynamic, trip, chunk);
      std::vector<int> runs(trip, 0);
      uint64_t begin = 0, end = 0, last = 0;
      for (int claim = 0;; ++claim) {
        uint64_t left = trip - std::min(trip, loop.nextIteration.load());
        // Every third claim is a local thread's single chunk.
        bool batched = claim % 3 != 0;
        bool got = batched ? claimSharedChunks(loop, threads, begin, end)
                           : claimSharedChunk(loop, threads, begin, end);
        if (!got) break;
        ASSERT_EQ(begin % chunk, 0u) << trip << "/" << chunk;
        ASSERT_LT(begin, end);
        ASSERT_LE(end, trip);
        if (batched) {
          uint64_t budget = std::max<uint64_t>(left / (2 * threads) / chunk, 1) * chunk;
          ASSERT_LE(end - begin, budget) << trip << "/" << chunk;
        }
        for (uint64_t i = begin; i < end; ++i) ++runs[i];
        last = end - begin;
      }
      EXPECT_TRUE(std::all_of(runs.begin(), runs.end(), [](int n) { return n == 1; }))
          << trip << "/" << chunk;
      if (trip > 0) EXPECT_LE(last, chunk) << trip << "/" << chunk;
    }
}

TEST(LoopClaims, AGuidedClaimIsOneGuidedChunk) {
  LoopShare batched, single;
  shape(batched, LoopShare::kGuided, 1000, 4);
  shape(single, LoopShare::kGuided, 1000, 4);
  uint64_t b1 = 0, e1 = 0, b2 = 0, e2 = 0;
  while (claimSharedChunk(single, 6, b2, e2)) {
    ASSERT_TRUE(claimSharedChunks(batched, 6, b1, e1));
    EXPECT_EQ(b1, b2);
    EXPECT_EQ(e1, e2);
  }
  EXPECT_FALSE(claimSharedChunks(batched, 6, b1, e1));
}

}  // namespace
}  // namespace synergy::omp

//===- WaitWordTest.cpp - OpenMP waits: futex words and spin budgets -------===//
//
// WaitWord must never lose a wake-up: threads that sleep at once (no spin)
// hand a token back and forth and meet at a word many times over, and a
// lost wake-up hangs the test (ctest's time-out reports it). SpinCounts must
// read OMP_WAIT_POLICY and GOMP_SPINCOUNT as libgomp documents them.
//
//===----------------------------------------------------------------------===//
#include "omp/WaitWord.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace synergy::omp {
namespace {

TEST(SpinCounts, DefaultsAreLibgompsWithoutAPolicy) {
  SpinCounts counts = SpinCounts::fromEnvironment(nullptr, nullptr);
  EXPECT_EQ(counts.spins, 300000u);
  EXPECT_EQ(counts.throttled, 100u);
}

TEST(SpinCounts, ActiveSpinsForMinutesAndPassiveNever) {
  SpinCounts active = SpinCounts::fromEnvironment("ACTIVE", nullptr);
  EXPECT_EQ(active.spins, 30000000000u);
  EXPECT_EQ(active.throttled, 1000u);
  SpinCounts passive = SpinCounts::fromEnvironment("passive", nullptr);
  EXPECT_EQ(passive.spins, 0u);
  EXPECT_EQ(passive.throttled, 0u);
}

TEST(SpinCounts, SpinCountOverridesThePolicyAndCapsTheThrottledSpin) {
  SpinCounts counts = SpinCounts::fromEnvironment("active", "10");
  EXPECT_EQ(counts.spins, 10u);
  EXPECT_EQ(counts.throttled, 10u);
  EXPECT_EQ(SpinCounts::fromEnvironment(nullptr, "infinite").spins, UINT64_MAX);
  EXPECT_EQ(SpinCounts::fromEnvironment("passive", "5000").spins, 5000u);
}

TEST(SpinCounts, MalformedSpinCountsAreIgnored) {
  for (const char* text : {"", "abc", "12x", "-5", "99999999999999999999999"})
    EXPECT_EQ(SpinCounts::fromEnvironment(nullptr, text).spins, 300000u) << text;
}

TEST(SpinCounts, OversubscribedAndDsmTeamsSpinBriefly) {
  SpinCounts counts = SpinCounts::fromEnvironment(nullptr, nullptr);
  EXPECT_EQ(counts.forTeam(4, 4, false), 300000u);
  EXPECT_EQ(counts.forTeam(5, 4, false), 100u);
  EXPECT_EQ(counts.forTeam(2, 4, true), 100u);
}

// Two threads pass a token by turns, each sleeping without a spin until
// the word holds its turn.
TEST(WaitWord, PingPongWithoutSpinningLosesNoWakeUp) {
  constexpr uint32_t kRounds = 2000;
  WaitWord turn;
  std::thread partner([&] {
    for (uint32_t i = 1; i < 2 * kRounds; i += 2) {
      for (uint32_t seen; (seen = turn.load()) != i;) turn.waitWhileEquals(seen, 0);
      turn.fetch_add(1);
      turn.wakeAll();
    }
  });
  for (uint32_t i = 0; i < 2 * kRounds; i += 2) {
    for (uint32_t seen; (seen = turn.load()) != i;) turn.waitWhileEquals(seen, 0);
    turn.fetch_add(1);
    turn.wakeOne();
  }
  partner.join();
  EXPECT_EQ(turn.load(), 2 * kRounds);
}

// Four threads meet at a counting barrier built on two words, many times.
TEST(WaitWord, BarrierOfFourSleepersOpensEveryRound) {
  constexpr int kThreads = 4;
  constexpr uint32_t kRounds = 500;
  WaitWord arrived, generation;
  std::vector<uint32_t> rounds(kThreads, 0);
  auto member = [&](int me) {
    for (uint32_t round = 0; round < kRounds; ++round) {
      uint32_t seen = generation.load();
      if (arrived.fetch_add(1) + 1 == kThreads) {
        arrived.store(0);
        generation.fetch_add(1);
        generation.wakeAll();
      } else {
        generation.waitWhileEquals(seen, 0);
      }
      ++rounds[size_t(me)];
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < kThreads; ++i) threads.emplace_back(member, i);
  member(0);
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(generation.load(), kRounds);
  for (uint32_t count : rounds) EXPECT_EQ(count, kRounds);
}

}  // namespace
}  // namespace synergy::omp

//===- WaitWord.h - a 32-bit counter OpenMP threads spin, then sleep on ----===//
//
// Every place an OpenMP thread waits for another (a barrier's generation, a
// worker's next job, the end of a region, a reduction's release, an ordered
// loop's turn, a task pool's events) waits for a 32-bit counter to move.
// std::atomic::wait would do, but libstdc++'s version calls sched_yield
// several times before it sleeps: on a barrier-bound loop that is thousands
// of yields per thousand barriers, each a trip through the scheduler that
// libgomp never makes. A WaitWord sleeps with FUTEX_WAIT directly and
// counts its sleepers, so that moving the counter costs a FUTEX_WAKE only
// when someone sleeps.
//
// How long a waiter spins first follows libgomp: OMP_WAIT_POLICY and
// GOMP_SPINCOUNT (SpinCounts), with a short spin when a team has more
// threads than the machine has processors, or runs on --dsm replicas, where
// the thread that will release the waiter is busy for a long time pushing
// and pulling diffs.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>

namespace synergy::omp {

class WaitWord {
 public:
  uint32_t load(std::memory_order order = std::memory_order_seq_cst) const {
    return value_.load(order);
  }
  // Every change is made through these; wakeAll/wakeOne then wake sleepers.
  void store(uint32_t value, std::memory_order order = std::memory_order_seq_cst) {
    value_.store(value, order);
  }
  uint32_t fetch_add(uint32_t delta, std::memory_order order = std::memory_order_seq_cst) {
    return value_.fetch_add(delta, order);
  }
  uint32_t fetch_sub(uint32_t delta, std::memory_order order = std::memory_order_seq_cst) {
    return value_.fetch_sub(delta, order);
  }

  // Wakes the threads asleep in waitWhileEquals after a change.
  void wakeAll();
  void wakeOne();

  // Returns once the counter no longer holds `old` (acquire): spins for up
  // to `spins` pause instructions, then sleeps until woken.
  void waitWhileEquals(uint32_t old, uint64_t spins) const;

 private:
  void wake(int count);

  std::atomic<uint32_t> value_{0};
  mutable std::atomic<uint32_t> sleepers_{0};
};

// Spin budgets before a waiter sleeps, in pause instructions, as libgomp
// derives them from its environment variables.
struct SpinCounts {
  uint64_t spins = 300000;  // a team that fits on the processors
  uint64_t throttled = 100;  // an oversubscribed or --dsm team

  // OMP_WAIT_POLICY (active: spin for minutes; passive: never spin) and
  // GOMP_SPINCOUNT (a count, or "infinite"), either of which may be null.
  static SpinCounts fromEnvironment(const char* waitPolicy, const char* spinCount);
  uint64_t forTeam(int threads, int processors, bool dsm) const {
    return threads > processors || dsm ? throttled : spins;
  }
};

}  // namespace synergy::omp

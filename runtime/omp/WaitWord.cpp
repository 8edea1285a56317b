//===- WaitWord.cpp - a 32-bit counter OpenMP threads spin, then sleep on --===//
//
// The futex protocol: a sleeper counts itself in `sleepers_` before it
// rechecks the counter and sleeps; a changer moves the counter, then reads
// `sleepers_`. Both orders are sequentially consistent, so either the
// changer sees the sleeper or the sleeper sees the new value, and the
// kernel's own check (FUTEX_WAIT returns at once if the word moved) closes
// the gap between the recheck and the sleep.
//
//===----------------------------------------------------------------------===//
#include "omp/WaitWord.h"

#include <linux/futex.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

namespace synergy::omp {
namespace {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "a futex word must be a plain 32-bit integer");

// libgomp's figures: about 5 minutes of spinning for an active policy, and
// 1000 pauses when an active team is oversubscribed.
constexpr uint64_t kActiveSpins = 30000000000ull;
constexpr uint64_t kActiveThrottledSpins = 1000;

uint32_t* futexAddress(const std::atomic<uint32_t>& word) {
  return reinterpret_cast<uint32_t*>(const_cast<std::atomic<uint32_t>*>(&word));
}

}  // namespace

void WaitWord::wakeAll() { wake(INT_MAX); }
void WaitWord::wakeOne() { wake(1); }

void WaitWord::wake(int count) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
  syscall(SYS_futex, futexAddress(value_), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

void WaitWord::waitWhileEquals(uint32_t old, uint64_t spins) const {
  for (uint64_t i = 0; i < spins; ++i) {
    if (value_.load(std::memory_order_acquire) != old) return;
    __builtin_ia32_pause();
  }
  if (value_.load(std::memory_order_acquire) != old) return;
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  while (value_.load(std::memory_order_seq_cst) == old)
    syscall(SYS_futex, futexAddress(value_), FUTEX_WAIT_PRIVATE, old, nullptr, nullptr, 0);
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
}

SpinCounts SpinCounts::fromEnvironment(const char* waitPolicy, const char* spinCount) {
  SpinCounts counts;
  bool active = waitPolicy && !strcasecmp(waitPolicy, "active");
  bool passive = waitPolicy && !strcasecmp(waitPolicy, "passive");
  bool countGiven = false;
  if (spinCount) {
    if (!strcasecmp(spinCount, "infinite") || !strcasecmp(spinCount, "infinity")) {
      counts.spins = UINT64_MAX;
      countGiven = true;
    } else {
      char* end = nullptr;
      errno = 0;
      unsigned long long parsed = std::strtoull(spinCount, &end, 10);
      if (end != spinCount && *end == '\0' && errno == 0 && spinCount[0] != '-') {
        counts.spins = parsed;
        countGiven = true;
      }
    }
  }
  if (!countGiven && active) counts.spins = kActiveSpins;
  if (!countGiven && passive) counts.spins = 0;
  if (active) counts.throttled = kActiveThrottledSpins;
  if (passive) counts.throttled = 0;
  if (counts.throttled > counts.spins) counts.throttled = counts.spins;
  return counts;
}

}  // namespace synergy::omp

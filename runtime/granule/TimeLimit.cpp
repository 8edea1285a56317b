//===- TimeLimit.cpp - a wall-clock budget for every granule of a process -===//
//
// A detached watchdog thread sleeps until the deadline, then marks the limit
// expired and signals every guest thread every few milliseconds. A thread
// interrupted in the module's code unwinds there; one interrupted in host
// code is left alone, because it may hold locks, and is caught on a later
// signal once it is back in guest code.
//
// A thread can stay in host code for good: blocked reading a pipe that never
// closes, in MPI_Recv waiting for a rank that will never send, in
// pthread_join or an OpenMP barrier behind such a thread. If no thread has
// been caught after a grace period, every guest thread is in host code and
// cannot be unwound safely, so the watchdog reports the trap itself and ends
// the process with the trap status. Only the first thread caught traps, so
// the report is printed once: a trapped OpenMP thread or pthread ends the
// process, a trapped main thread returns to synergy-run, and a trapped MPI
// rank aborts the job, whose other ranks are woken from their MPI calls or,
// if they compute, ended after the job's abort grace period. Symbolizing the
// trapping function takes a subprocess; the watchdog gives the report time
// and only makes sure the process does end.
//
//===----------------------------------------------------------------------===//
#include "granule/TimeLimit.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "granule/GuestExecution.h"

namespace synergy::granule {
namespace {

using Clock = std::chrono::steady_clock;

// As for every trap (synergy-run's exit status for a trapped guest).
constexpr int kTrapExitStatus = 134;
constexpr auto kInterruptInterval = std::chrono::milliseconds(10);
// With every thread interrupted a hundred times in host code, none is
// computing: they are all blocked.
constexpr auto kBlockedGrace = std::chrono::seconds(1);
// Time for a caught thread's trap report to end the process.
constexpr auto kReportGrace = std::chrono::seconds(10);

std::atomic<int64_t> gBudgetNanoseconds{0};

[[noreturn]] void reportBlockedAndExit() {
  // write(2), not stdio: a guest thread may have been interrupted inside it.
  std::string message = std::string("trap: ") + kTimeLimitTrapReason +
                        " in <host function> (every guest thread was blocked in a host call)\n";
  (void)!::write(STDERR_FILENO, message.data(), message.size());
  ::_exit(kTrapExitStatus);
}

[[noreturn]] void watchDeadline(Clock::time_point deadline) {
  std::this_thread::sleep_until(deadline);
  expireGuestTimeLimit();
  Clock::time_point blockedDeadline = Clock::now() + kBlockedGrace;
  std::optional<Clock::time_point> reportDeadline;
  for (;;) {
    interruptGuestThreads();
    Clock::time_point now = Clock::now();
    if (timeLimitTrapTaken()) {
      if (!reportDeadline) reportDeadline = now + kReportGrace;
      if (now >= *reportDeadline) ::_exit(kTrapExitStatus);
    } else if (now >= blockedDeadline) {
      reportBlockedAndExit();
    }
    std::this_thread::sleep_for(kInterruptInterval);
  }
}

}  // namespace

void setTimeLimit(std::chrono::nanoseconds budget) {
  gBudgetNanoseconds.store(budget.count(), std::memory_order_relaxed);
}

void startTimeLimitClock() {
  int64_t budget = gBudgetNanoseconds.load(std::memory_order_relaxed);
  if (budget <= 0) return;
  static std::once_flag started;
  std::call_once(started, [budget] {
    Clock::time_point deadline = Clock::now() + std::chrono::nanoseconds(budget);
    std::thread(watchDeadline, deadline).detach();
  });
}

}  // namespace synergy::granule

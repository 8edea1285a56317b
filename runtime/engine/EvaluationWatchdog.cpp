//===- EvaluationWatchdog.cpp - end an engine stuck inside one call -------===//
//
// This file implements EvaluationWatchdog (EvaluationWatchdog.h). The thread
// wakes a few times per evaluation limit; a call counter that is odd (the
// host is inside the engine) and has not moved since the first wake-up that
// saw it is one call, and once that call has lasted the limit the process
// ends with _exit: the stuck thread cannot be unwound, and what the design
// buffered for its files is lost, as under --time-limit.
//
//===----------------------------------------------------------------------===//
#include "engine/EvaluationWatchdog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace synergy::engine {

namespace {

// As for a granule that traps (synergy-run), and as --time-limit.
constexpr int kStoppedExitStatus = 134;
// How long past the --time-limit deadline a call may keep the host away
// from its checks.
constexpr auto kStuckTickGrace = std::chrono::seconds(1);

[[noreturn]] void stop(const std::string& message) {
  (void)!::write(STDERR_FILENO, message.data(), message.size());
  ::_exit(kStoppedExitStatus);
}

std::string secondsText(std::chrono::nanoseconds duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", std::chrono::duration<double>(duration).count());
  return text;
}

}  // namespace

EvaluationWatchdog::EvaluationWatchdog(const EngineCallCounter& calls, std::string enginePath,
                                       std::chrono::nanoseconds evaluationLimit)
    : calls_(calls), enginePath_(std::move(enginePath)), evaluationLimit_(evaluationLimit),
      thread_([this] { watch(); }) {}

void EvaluationWatchdog::setDeadline(Clock::time_point deadline) {
  std::lock_guard<std::mutex> lock(mutex_);
  deadline_ = deadline;
}

EvaluationWatchdog::~EvaluationWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stopRequested_.notify_one();
  thread_.join();
}

void EvaluationWatchdog::watch() {
  // Eight samples per limit end a stuck call within 1.125 limits.
  auto period = std::clamp<std::chrono::nanoseconds>(evaluationLimit_ / 8, std::chrono::milliseconds(10),
                                                     std::chrono::milliseconds(250));
  uint64_t watchedCall = calls_.count();
  Clock::time_point watchedSince = Clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopRequested_.wait_for(lock, period, [this] { return stopping_; })) {
    Clock::time_point now = Clock::now();
    if (deadline_ && now >= *deadline_ + kStuckTickGrace)
      stop(enginePath_ + ": time limit exceeded in the middle of a tick (--time-limit)\n");
    uint64_t call = calls_.count();
    if (call != watchedCall) {
      watchedCall = call;
      watchedSince = now;
    } else if (call % 2 == 1 && now - watchedSince >= evaluationLimit_) {
      stop(enginePath_ + ": error: the engine ran for " + secondsText(evaluationLimit_) +
           " s inside one evaluation without returning (a loop that never ends?); stopped (--eval-limit)\n");
    }
  }
}

}  // namespace synergy::engine

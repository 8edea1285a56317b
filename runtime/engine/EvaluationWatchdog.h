//===- EvaluationWatchdog.h - end an engine stuck inside one call ---------===//
//
// The host regains control from an engine only when a call into it returns:
// an evaluation, a resume, an update or an open-loop batch. Verilator runs a
// design's loops inside such a call, and the runtime cannot prove that the
// loops of an untrusted .eng end (a forged one may hold `while (1)`), so a
// watchdog thread bounds every call instead: one that has not returned
// after the evaluation limit (--eval-limit, 10 s unless given) ends the run
// with a message and status 134, as --time-limit does. Under --time-limit
// the same thread also ends a call still running a grace period after the
// deadline, since the host checks the deadline only between calls.
//
// The engine counts its calls (EngineCallCounter); the watchdog only
// samples that counter, so the host's path through the engine gains two
// plain stores a call and no clock reads.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engine/EngineInstance.h"

namespace synergy::engine {

class EvaluationWatchdog {
 public:
  using Clock = std::chrono::steady_clock;

  // Watches the calls `calls` counts from now until destruction; started
  // before the engine is loaded, so its creation is watched too.
  EvaluationWatchdog(const EngineCallCounter& calls, std::string enginePath,
                     std::chrono::nanoseconds evaluationLimit);
  ~EvaluationWatchdog();
  EvaluationWatchdog(const EvaluationWatchdog&) = delete;
  EvaluationWatchdog& operator=(const EvaluationWatchdog&) = delete;

  // The --time-limit deadline, set once the first tick starts.
  void setDeadline(Clock::time_point deadline);

 private:
  void watch();

  const EngineCallCounter& calls_;
  const std::string enginePath_;
  const std::chrono::nanoseconds evaluationLimit_;
  std::optional<Clock::time_point> deadline_;  // guarded by mutex_
  std::mutex mutex_;
  std::condition_variable stopRequested_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace synergy::engine

//===- Timeline.h - ticks/s and tasks/s of a run over wall time, as CSV ----===//
//
// `synergy-run --timeline FILE.csv` records how fast a run goes while it
// runs: every 100 ms of wall time, a sampling thread writes one row with the
// virtual ticks and trapped tasks so far, their rates over the last interval
// and the kind of engine running. The run only bumps two counters (relaxed
// atomics, no lock on its path); the switch from the software to the
// compiled engine shows as a change of the engine column, and gets a row of
// its own at the moment it happens. This is Fig. 9-12 of the Synergy paper
// as data: bench/verilog draws it.
//
// An engine behind a hypervisor runs a batch of ticks per request; while a
// batch goes on, the hypervisor reports its progress (HvRunProgress) and the
// rows show it, until the run's own counts take its place. A row never shows
// fewer ticks or tasks than the one before.
//
// The columns, after a header line:
//   time_s        wall seconds since the run started (before any build)
//   ticks         virtual ticks completed so far
//   ticks_per_s   over the interval since the previous row
//   tasks         tasks trapped into the runtime so far
//   tasks_per_s   over the interval since the previous row
//   engine        none (building), software or compiled
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace synergy::engine {

// What a run publishes for its timeline; the run writes, the sampler reads.
struct TimelineCounters {
  std::atomic<uint64_t> ticks{0};
  std::atomic<uint64_t> tasks{0};
  // A string literal: "none", "software" or "compiled".
  std::atomic<const char*> engine{"none"};
  // Ticks and tasks an engine elsewhere reports from inside a batch it is
  // still running (hypervisor/RemoteEngine.cpp): not yet in ticks and tasks,
  // and zero again once the batch's reply is in.
  std::atomic<uint64_t> batchTicks{0};
  std::atomic<uint64_t> batchTasks{0};

  void addTask() { tasks.store(tasks.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

class Timeline {
 public:
  static constexpr std::chrono::milliseconds kPeriod{100};

  // Creates (or truncates) `path` and writes the header; nullptr and a
  // one-line `error` when the file cannot be opened. A run opens it before
  // it starts anything (a detached build), so that a bad path leaves
  // nothing behind, and starts sampling later: a build process is forked
  // while the run is still single-threaded.
  static std::unique_ptr<Timeline> open(const std::string& path, const TimelineCounters& counters,
                                        std::string& error);
  void startSampling();
  // Stops sampling and writes the last row.
  ~Timeline();

  // A row now, off the period: the moment of an engine switch.
  void recordNow();

 private:
  Timeline(std::FILE* file, const TimelineCounters& counters);
  void sampleLoop();
  void writeRow();

  std::FILE* file_;
  const TimelineCounters& counters_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lastTime_;
  uint64_t lastTicks_ = 0, lastTasks_ = 0;
  std::mutex mutex_;  // guards the file and the last-row fields
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread sampler_;
};

}  // namespace synergy::engine

//===- Timeline.cpp - ticks/s and tasks/s of a run over wall time, as CSV --===//
//
// This file implements Timeline: one sampling thread that wakes every
// kPeriod (or when the timeline stops) and appends a row. Rows are flushed
// as they are written, so the file can be watched during a long run, and a
// run that ends early still leaves every row up to its end.
//
//===----------------------------------------------------------------------===//
#include "engine/Timeline.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace synergy::engine {

std::unique_ptr<Timeline> Timeline::open(const std::string& path, const TimelineCounters& counters,
                                         std::string& error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  std::FILE* file = fd < 0 ? nullptr : ::fdopen(fd, "w");
  if (!file) {
    error = "--timeline: cannot write " + path + ": " + std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    return nullptr;
  }
  std::fputs("time_s,ticks,ticks_per_s,tasks,tasks_per_s,engine\n", file);
  std::fflush(file);
  return std::unique_ptr<Timeline>(new Timeline(file, counters));
}

Timeline::Timeline(std::FILE* file, const TimelineCounters& counters)
    : file_(file), counters_(counters), start_(std::chrono::steady_clock::now()), lastTime_(start_) {}

void Timeline::startSampling() {
  if (!sampler_.joinable())
    sampler_ = std::thread([this] { sampleLoop(); });
}

Timeline::~Timeline() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (sampler_.joinable())
    sampler_.join();
  writeRow();
  std::fclose(file_);
}

void Timeline::recordNow() { writeRow(); }

void Timeline::sampleLoop() {
  auto next = start_ + kPeriod;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (wake_.wait_until(lock, next, [this] { return stopping_; }))
      return;
    lock.unlock();
    writeRow();
    lock.lock();
    // A sampler that fell behind (a stopped process) skips the missed rows.
    auto now = std::chrono::steady_clock::now();
    while (next <= now) next += kPeriod;
  }
}

void Timeline::writeRow() {
  std::lock_guard<std::mutex> lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  // The run counts a batch's ticks and tasks only once it has serviced the
  // batch's reply, after the batch's reported progress is gone: until then a
  // row repeats the last one's count rather than go back.
  uint64_t ticks = std::max(lastTicks_, counters_.ticks.load(std::memory_order_relaxed) +
                                            counters_.batchTicks.load(std::memory_order_relaxed));
  uint64_t tasks = std::max(lastTasks_, counters_.tasks.load(std::memory_order_relaxed) +
                                            counters_.batchTasks.load(std::memory_order_relaxed));
  double interval = std::chrono::duration<double>(now - lastTime_).count();
  double ticksPerSecond = interval > 0 ? double(ticks - lastTicks_) / interval : 0;
  double tasksPerSecond = interval > 0 ? double(tasks - lastTasks_) / interval : 0;
  std::fprintf(file_, "%.3f,%llu,%.1f,%llu,%.1f,%s\n", std::chrono::duration<double>(now - start_).count(),
               static_cast<unsigned long long>(ticks), ticksPerSecond, static_cast<unsigned long long>(tasks),
               tasksPerSecond, counters_.engine.load(std::memory_order_relaxed));
  std::fflush(file_);
  lastTime_ = now;
  lastTicks_ = ticks;
  lastTasks_ = tasks;
}

}  // namespace synergy::engine

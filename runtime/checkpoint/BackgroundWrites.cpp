//===- BackgroundWrites.cpp - checkpoint writes after the ranks go on -------===//
//
// This file implements BackgroundWrites.h.
//
//===----------------------------------------------------------------------===//
#include "checkpoint/BackgroundWrites.h"

namespace synergy::checkpoint {

BackgroundWrites::~BackgroundWrites() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return queued_.empty() && !running_; });
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BackgroundWrites::queue(std::function<void()> write) {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    queued_.push_back(std::move(write));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  changed_.notify_all();
}

void BackgroundWrites::finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return queued_.empty() && !running_; });
}

bool BackgroundWrites::idle() {
  std::lock_guard<std::mutex> guard(mutex_);
  return queued_.empty() && !running_;
}

void BackgroundWrites::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queued_.empty(); });
    if (queued_.empty()) return;
    std::function<void()> write = std::move(queued_.front());
    queued_.pop_front();
    running_ = true;
    lock.unlock();
    write();
    lock.lock();
    running_ = false;
    changed_.notify_all();
  }
}

}  // namespace synergy::checkpoint

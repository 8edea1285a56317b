//===- BackgroundWrites.h - checkpoint writes after the ranks go on ---------===//
//
// A job on one host writes its checkpoint files, a part of a job spread
// over hosts its checkpoint sections, and part 0 assembles and commits the
// checkpoint file, on one thread of their own, in the order the
// checkpoints were taken, while the ranks run on:
// the sections are copies of the ranks' memory taken while they stood
// still, so nothing the ranks do afterwards reaches the file, and the
// ranks wait for the copies, not for the disk (writes, fsyncs and the
// round trips that tell part 0 a part's file is there). Until a write is
// done the checkpoint on disk is the previous one, whole; the committing
// process (part 0) takes no next checkpoint before its last commit is done
// (idle(), or finish() at --checkpoint-every 0), so at most one checkpoint
// per part is in memory beside the ranks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace synergy::checkpoint {

class BackgroundWrites {
 public:
  BackgroundWrites() = default;
  // Waits for every write queued, then ends the thread.
  ~BackgroundWrites();
  BackgroundWrites(const BackgroundWrites&) = delete;
  BackgroundWrites& operator=(const BackgroundWrites&) = delete;

  // Queues `write`; never waits (callers hold their coordinator's lock,
  // which a write may take when it is done).
  void queue(std::function<void()> write);
  // Waits until every write queued so far is done.
  void finish();
  // Whether every write queued so far is done, without waiting.
  bool idle();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queued_;
  bool running_ = false;  // a write is being done
  bool stopping_ = false;
  std::thread thread_;    // started by the first queue()
};

}  // namespace synergy::checkpoint

//===- BackgroundWritesTest.cpp - checkpoint writes after the ranks go on --===//
//
// The coordinator decides whether a checkpoint is due by whether the last
// write is done (idle()) and, at an interval of 0, waits for it (finish()):
// both must see a write that is queued or running as not done, whatever the
// thread is doing, and the writes must run in the order they were queued.
// Each write here blocks until the test lets it go, so no step depends on
// timing.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <future>
#include <vector>

#include "checkpoint/BackgroundWrites.h"

namespace synergy::checkpoint {
namespace {

TEST(BackgroundWrites, IdleOnlyOnceEveryQueuedWriteIsDone) {
  BackgroundWrites writes;
  EXPECT_TRUE(writes.idle());
  std::promise<void> firstStarted, letFirstGo, letSecondGo;
  std::shared_future<void> first = letFirstGo.get_future().share();
  std::shared_future<void> second = letSecondGo.get_future().share();
  std::vector<int> order;
  writes.queue([&, first] {
    firstStarted.set_value();
    first.wait();
    order.push_back(1);
  });
  writes.queue([&, second] {
    second.wait();
    order.push_back(2);
  });
  // Queued, then running: not idle either way.
  EXPECT_FALSE(writes.idle());
  firstStarted.get_future().wait();
  EXPECT_FALSE(writes.idle());
  letFirstGo.set_value();
  // The second is still held back, so finish() cannot be over yet.
  EXPECT_FALSE(writes.idle());
  letSecondGo.set_value();
  writes.finish();
  EXPECT_TRUE(writes.idle());
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace synergy::checkpoint

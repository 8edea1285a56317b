//===- OutputForwardingTest.cpp - ending the forwarding from two threads ---===//
//
// A rank's pthread that ends the process (exit, a trap, an error under
// MPI_ERRORS_ARE_FATAL) flushes the job's output from its own thread while
// the launcher, which saw the rank return, flushes it from the main thread.
// Both calls must forward every byte exactly once, and neither may join the
// forwarding thread a second time (that threw std::system_error and aborted
// synergy-run with status 134 instead of the job's status, or hung). A
// watchdog ends the test as a failure rather than letting a hang last.
//
// A rank a live move brings into a running part gets its streams while the
// forwarding thread polls the others (addRank): its lines are forwarded,
// tagged with its world rank, and a rank out of range or one whose streams
// are still open here gets none.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "mpi/OutputForwarding.h"

using namespace synergy::mpi;

namespace {

TEST(OutputForwardingTest, FlushNowFromTwoThreadsForwardsOnceAndJoinsOnce) {
  constexpr int kRounds = 200;
  std::mutex doneLock;
  std::condition_variable doneSignal;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(doneLock);
    if (!doneSignal.wait_for(lock, std::chrono::seconds(30), [&] { return done; })) {
      std::fprintf(stderr, "FAILED: two flushNow calls did not both return within 30 s\n");
      std::_Exit(1);
    }
  });
  std::string expected;
  testing::internal::CaptureStdout();
  for (int round = 0; round < kRounds; ++round) {
    OutputForwarding output({0}, /*tagOutput=*/false);
    ASSERT_TRUE(output.ok());
    int stdoutEnd = output.takeWriteEnd(0, 1);
    int stderrEnd = output.takeWriteEnd(0, 2);
    std::string text = "round " + std::to_string(round) + "\npartial";
    ASSERT_EQ(::write(stdoutEnd, text.data(), text.size()), ssize_t(text.size()));
    expected += text;
    output.start();
    std::atomic<int> ready{0};
    auto flush = [&] {
      ++ready;
      while (ready.load() < 2) std::this_thread::yield();
      output.flushNow();
    };
    std::thread other(flush);
    flush();
    other.join();
    ::close(stdoutEnd);
    ::close(stderrEnd);
  }
  EXPECT_EQ(testing::internal::GetCapturedStdout(), expected);
  {
    std::lock_guard<std::mutex> lock(doneLock);
    done = true;
  }
  doneSignal.notify_one();
  watchdog.join();
}

TEST(OutputForwardingTest, ARankAddedWhileRunningIsForwarded) {
  testing::internal::CaptureStdout();
  {
    OutputForwarding output({0, 2}, /*tagOutput=*/true);
    ASSERT_TRUE(output.ok());
    int ends[2][2];
    for (int local = 0; local < 2; ++local)
      for (int stream = 1; stream <= 2; ++stream)
        ends[local][stream - 1] = output.takeWriteEnd(local, stream);
    output.start();
    int refused[2];
    EXPECT_FALSE(output.addRank(-1, refused));
    EXPECT_EQ(refused[0], -1);
    EXPECT_FALSE(output.addRank(2, refused)) << "rank 2's streams are open here";
    int added[2];
    ASSERT_TRUE(output.addRank(5, added));
    EXPECT_FALSE(output.addRank(5, refused)) << "twice";
    EXPECT_EQ(refused[1], -1);
    std::string line = "from rank five\n";
    ASSERT_EQ(::write(added[0], line.data(), line.size()), ssize_t(line.size()));
    ::close(added[0]);
    ::close(added[1]);
    for (auto& pair : ends)
      for (int fd : pair) ::close(fd);
    output.finish();
  }
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "[1,5]<stdout>:from rank five\n");
}

}  // namespace

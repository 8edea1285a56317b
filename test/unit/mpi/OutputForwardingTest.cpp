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

}  // namespace

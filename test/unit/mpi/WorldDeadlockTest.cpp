//===- WorldDeadlockTest.cpp - the deadlock watch and busy sleepers --------===//
//
// A rank woken from its sleep marks itself asleep again before it looks at
// its wait's condition, and that look may take a message and copy it into
// the receive buffer, which for a large one takes long. The watch must
// count such a rank as busy: here the look is held open until the test has
// asked the watch, and the watch gives no report however often it is
// asked, while the same rank asleep is reported.
//
// A rank that departed at a control point (a live move) and never arrives
// is reported too, as not arrived, once the others have been blocked for
// it many times the usual ticks, and not before: its arrival changes
// nothing the watch sees until it is done. A departed rank that left for
// another part (rankLeft) is not reported, and only a departed rank in
// range can leave. A rank arriving from a live move goes on from its own
// progress on each communicator (progressOf on the source, restoreProgress
// on the target), which refuses a rank that is not a member; the
// communicators made here are found again by context while a rank holds
// them (liveCommunicator).
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "mpi/World.h"

using namespace synergy::mpi;

namespace {

TEST(WorldDeadlockTest, ARankLookingAtItsWaitIsBusyNotBlocked) {
  World world(2, /*ranksOwnCpus=*/false);
  world.rankStarted(0);
  world.rankStarted(1);
  world.rankFinished(1);
  std::atomic<bool> released{false}, looking{false}, asked{false};
  std::thread rank([&] {
    WaitInfo info{"MPI_Recv", 1, 0, world.worldComm().get()};
    world.waitForOthers(0, info, [&] {
      if (!released.load()) return false;
      looking.store(true);
      while (!asked.load()) std::this_thread::yield();
      return true;
    });
  });
  // Asleep with nothing to wake it: the watch reports it once the state
  // has held for its ticks.
  std::optional<std::string> report;
  while (!(report = world.checkDeadlock(2))) std::this_thread::yield();
  EXPECT_NE(report->find("rank 0: blocked in MPI_Recv"), std::string::npos) << *report;
  released.store(true);
  world.wakeWaiter(0);
  while (!looking.load()) std::this_thread::yield();
  for (int check = 0; check < 10; ++check)
    EXPECT_FALSE(world.checkDeadlock(2)) << "rank 0 is copying a message, not blocked";
  asked.store(true);
  rank.join();
}

TEST(WorldDeadlockTest, ARankThatNeverArrivesIsReportedLate) {
  World world(2, /*ranksOwnCpus=*/false);
  world.rankStarted(0);
  world.rankStarted(1);
  world.rankDeparted(1);
  std::atomic<bool> released{false};
  std::thread rank([&] {
    world.waitForOthers(0, WaitInfo{"a barrier control point's agreement"},
                        [&] { return released.load(); });
  });
  // Rank 0 held, asleep: the usual ticks are not enough while rank 1 is on
  // its way.
  int ticks = 0;
  std::optional<std::string> report;
  while (!(report = world.checkDeadlock(2)) && ticks < 100000) {
    ++ticks;
    std::this_thread::yield();
  }
  if (!report) {
    released.store(true);
    world.wakeWaiter(0);
    rank.join();
    FAIL() << "a rank that never arrives is never reported";
  }
  EXPECT_GE(ticks, 2 * 10) << *report;
  EXPECT_NE(report->find("rank 1: departed at a barrier control point (a live move) and has not "
                         "arrived"),
            std::string::npos)
      << *report;
  EXPECT_NE(report->find("rank 0: blocked in a barrier control point's agreement"),
            std::string::npos)
      << *report;
  // Once it has arrived and runs, nothing is reported.
  world.rankArrived(1);
  for (int check = 0; check < 100; ++check)
    EXPECT_FALSE(world.checkDeadlock(2)) << "rank 1 runs again";
  released.store(true);
  world.wakeWaiter(0);
  rank.join();
}

TEST(WorldDeadlockTest, ARankThatLeftForAnotherPartIsNotReported) {
  World world(3, /*ranksOwnCpus=*/false);
  for (int rank = 0; rank < 3; ++rank) world.rankStarted(rank);
  EXPECT_FALSE(world.rankLeft(1)) << "rank 1 runs: it has not departed";
  EXPECT_FALSE(world.rankLeft(-1));
  EXPECT_FALSE(world.rankLeft(3));
  EXPECT_FALSE(world.rankLeft(1 << 30));
  world.rankDeparted(1);
  EXPECT_TRUE(world.rankLeft(1));
  EXPECT_FALSE(world.rankLeft(1)) << "it left once";
  world.rankFinished(2);
  std::atomic<bool> released{false};
  std::thread rank([&] {
    world.waitForOthers(0, WaitInfo{"MPI_Recv", 1, 0, world.worldComm().get()},
                        [&] { return released.load(); });
  });
  // Rank 0 alone blocked: reported after the usual ticks, without rank 1
  // as a departed rank that has not arrived.
  std::optional<std::string> report;
  for (int tick = 0; tick < 100000 && !report; ++tick) {
    report = world.checkDeadlock(2);
    std::this_thread::yield();
  }
  released.store(true);
  world.wakeWaiter(0);
  rank.join();
  ASSERT_TRUE(report) << "rank 0 blocked alone is never reported";
  EXPECT_EQ(report->find("departed"), std::string::npos) << *report;
}

TEST(WorldDeadlockTest, ARankArrivingGoesOnFromItsOwnProgress) {
  World source(3, /*ranksOwnCpus=*/false);
  Communicator& from = *source.worldComm();
  from.progressOf[1].collectives = 7;
  from.finishedUpTo[1].value.store(7);
  from.sequenceOfRank[1] = 2;
  std::optional<World::CommProgress> mine = source.progressOf(from, 1);
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->collectives, 7u);
  EXPECT_EQ(mine->finished, 7u);
  EXPECT_EQ(mine->sequence, 2u);
  for (int bad : {-1, 3, 1 << 30}) EXPECT_FALSE(source.progressOf(from, bad)) << bad;

  World target(3, /*ranksOwnCpus=*/false);
  std::shared_ptr<Communicator> split = target.makeCommunicator({0, 2});
  ASSERT_TRUE(split);
  std::string error;
  // Rank 1 is no member of {0, 2}; ranks out of range are nobody's.
  for (int bad : {1, -1, 3, 1 << 30}) {
    error.clear();
    EXPECT_FALSE(target.restoreProgress(*split, bad, *mine, error)) << bad;
    EXPECT_NE(error.find("not a member"), std::string::npos) << error;
  }
  split->progressOf[1].finishedOf.assign(2, 5);
  ASSERT_TRUE(target.restoreProgress(*split, 2, *mine, error)) << error;
  EXPECT_EQ(split->progressOf[1].collectives, 7u);
  EXPECT_EQ(split->finishedUpTo[1].value.load(), 7u);
  EXPECT_EQ(split->sequenceOfRank[1], 2u);
  EXPECT_EQ(split->progressOf[1].finishedOf, std::vector<uint64_t>(2, 0));
  // Rank 0 untouched.
  EXPECT_EQ(split->progressOf[0].collectives, 0u);
  EXPECT_EQ(split->sequenceOfRank[0], 0u);
}

TEST(WorldDeadlockTest, ACommunicatorIsFoundByContextWhileHeld) {
  World world(2, /*ranksOwnCpus=*/false);
  EXPECT_EQ(world.liveCommunicator(world.worldComm()->context), world.worldComm());
  std::shared_ptr<Communicator> made = world.makeCommunicator({1});
  ASSERT_TRUE(made);
  uint32_t context = made->context;
  EXPECT_EQ(world.liveCommunicator(context), made);
  EXPECT_FALSE(world.liveCommunicator(context + 1000));
  made.reset();
  EXPECT_FALSE(world.liveCommunicator(context));
  // Many made and dropped: the map is swept, the held ones stay.
  std::shared_ptr<Communicator> kept = world.makeCommunicator({0, 1});
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(world.makeCommunicator({0}));
  EXPECT_EQ(world.liveCommunicator(kept->context), kept);
}

}  // namespace

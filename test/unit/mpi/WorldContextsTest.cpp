//===- WorldContextsTest.cpp - where a resumed job draws contexts from ----===//
//
// A job resumed from a checkpoint must never draw a context that one of
// its communicators holds, although the hosts it ran on drew them from
// ranges of their own (World.h) and the resumed job's hosts may be others.
// World::resumeContextsBelow takes each recorded next context and each
// live context + 1: an end in this World's range moves its next draw
// there, any other leaves it, and joining other hosts after the resume
// (which moves the range) applies the ends to the new range.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "mpi/RemoteRanks.h"
#include "mpi/World.h"

using namespace synergy::mpi;

namespace {

// A link that only places the World's ranks on hosts; nothing is sent.
class PlacementOnly final : public RemoteRanks {
 public:
  explicit PlacementOnly(int host) : host_(host) {}
  void send(const RemoteMessage&, synergy::util::FunctionRef<void(uint8_t*)>) override {}
  void sendInPlace(const RemoteMessage&, const std::vector<LentData>&,
                   std::function<void()>) override {}
  void acknowledgeMatch(int, uint64_t, int64_t) override {}
  void sendRequestToSend(const RemoteMessage&) override {}
  void clearToSend(int, uint64_t, int, uint64_t) override {}
  void sendRendezvousData(int, uint64_t, const uint8_t*, int64_t,
                          std::function<void()>) override {}
  bool takeEagerCredit(int, int64_t) override { return true; }
  void returnEagerCredit(int, int64_t) override {}
  void abortJob(int) override {}
  int hostOf(int) const override { return host_; }
  int64_t maxMessageBytes() const override { return 1 << 20; }
  void sendRma(const RemoteRmaOp&, synergy::util::FunctionRef<void(uint8_t*)>) override {}
  void rmaDone(int, uint64_t, const uint8_t*, int64_t) override {}
  int64_t maxRmaBytes() const override { return 0; }
  std::optional<std::string> checkJobDeadlock(int) override { return std::nullopt; }

 private:
  int host_;
};

constexpr uint32_t kRange = 1u << kContextRangeShift;

TEST(WorldContexts, OneHostDrawsPastEveryRecordedEnd) {
  World world(2, false);
  EXPECT_EQ(world.nextContext(), 3u);  // MPI_COMM_WORLD's and two MPI_COMM_SELFs'
  world.resumeContextsBelow(9);
  world.resumeContextsBelow(5);          // below: no effect
  world.resumeContextsBelow(2 * kRange + 7);  // a spread job's host 1 drew it
  EXPECT_EQ(world.reserveContexts(1), std::optional<uint32_t>(2 * kRange + 7));
  EXPECT_EQ(world.nextContext(), 2 * kRange + 8);
}

TEST(WorldContexts, ASpreadHostCountsOnlyEndsInItsRange) {
  for (bool resumeFirst : {true, false}) {
    World world(4, false);
    PlacementOnly link(1);  // this host draws from 2 * 2^18 on
    auto resume = [&] {
      world.resumeContextsBelow(40);             // one host's draw: not this range
      world.resumeContextsBelow(kRange + 12);    // host 0's range
      world.resumeContextsBelow(2 * kRange + 9);  // its own
      world.resumeContextsBelow(2 * kRange + 6);
      world.resumeContextsBelow(3 * kRange + 1);  // host 2's
    };
    if (resumeFirst) resume();
    world.attachRemoteRanks(link, {true, true, false, false});
    if (!resumeFirst) resume();
    EXPECT_EQ(world.reserveContexts(2), std::optional<uint32_t>(2 * kRange + 9))
        << "resumed " << (resumeFirst ? "before" : "after") << " joining";
  }
  // Nothing recorded in its range: it draws on after the predefined ones.
  World fresh(4, false);
  PlacementOnly link(0);
  fresh.resumeContextsBelow(2 * kRange + 9);
  fresh.attachRemoteRanks(link, {false, true, true, true});
  EXPECT_EQ(fresh.reserveContexts(1), std::optional<uint32_t>(kRange + 5));
}

}  // namespace

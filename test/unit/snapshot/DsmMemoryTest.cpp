// Unit tests for the one-host DSM protocol: replicas on real threads pushing
// diffs into the main copy and pulling its changes back.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "snapshot/DsmMemory.h"

using namespace synergy::snapshot;

namespace {

template <typename T>
T load(const LinearMemory& memory, uint64_t offset) {
  T value;
  std::memcpy(&value, memory.base() + offset, sizeof value);
  return value;
}

template <typename T>
void store(LinearMemory& memory, uint64_t offset, T value) {
  std::memcpy(memory.base() + offset, &value, sizeof value);
}

// Runs `body` on a new thread and waits for it, so each step of a scenario
// runs on a thread of its own, as the replicas' threads would.
template <typename Body>
void onThread(Body body) {
  std::thread thread(body);
  thread.join();
}

class DsmMemory : public testing::Test {
 protected:
  void SetUp() override {
    installDirtyTrackingFaultHandler();
    std::string error;
    ASSERT_TRUE(main_.create(2, 16, error)) << error;
    for (uint64_t i = 0; i < main_.sizeBytes(); ++i) main_.base()[i] = uint8_t(i * 11);
  }

  std::unique_ptr<DsmReplica> replica(DsmMain& dsm) {
    std::string error;
    auto replica = dsm.createReplica(error);
    EXPECT_TRUE(replica) << error;
    return replica;
  }

  LinearMemory main_;
};

}  // namespace

TEST_F(DsmMemory, ReplicaStartsAsAPrivateCopyOfMain) {
  DsmMain dsm(main_);
  auto r = replica(dsm);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->memory().pages(), main_.pages());
  EXPECT_EQ(std::memcmp(r->memory().base(), main_.base(), main_.sizeBytes()), 0);
  r->memory().base()[100] = 1;
  EXPECT_EQ(main_.base()[100], uint8_t(100 * 11));
  EXPECT_EQ(dsm.version(), 0u);
  ASSERT_TRUE(r->push());
  EXPECT_EQ(main_.base()[100], 1);
  EXPECT_EQ(dsm.version(), 1u);
  ASSERT_TRUE(r->push());  // nothing new: no new version
  EXPECT_EQ(dsm.version(), 1u);
}

// (a) Two replicas write disjoint bytes of the same page concurrently.
TEST_F(DsmMemory, DisjointBytesOfOnePageFromTwoThreads) {
  DsmMain dsm(main_);
  std::string error;
  auto replicas = dsm.createReplicas(2, error);
  ASSERT_EQ(replicas.size(), 2u) << error;
  constexpr uint64_t kPageStart = 5 * kHostPageSize;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      LinearMemory& memory = replicas[t]->memory();
      for (uint64_t i = 0; i < 2048; ++i) memory.base()[kPageStart + 2 * i + uint64_t(t)] = uint8_t(t + 1);
      replicas[t]->push();
    });
  for (auto& thread : threads) thread.join();
  threads.clear();
  for (int t = 0; t < 2; ++t) threads.emplace_back([&, t] { replicas[t]->pull(); });
  for (auto& thread : threads) thread.join();

  for (uint64_t i = 0; i < kHostPageSize; ++i) {
    uint8_t expected = uint8_t(i % 2 + 1);
    ASSERT_EQ(main_.base()[kPageStart + i], expected) << i;
    ASSERT_EQ(replicas[0]->memory().base()[kPageStart + i], expected) << i;
    ASSERT_EQ(replicas[1]->memory().base()[kPageStart + i], expected) << i;
  }
  EXPECT_EQ(main_.base()[kPageStart - 1], uint8_t((kPageStart - 1) * 11));
}

// (b) A push must not resend a value the replica wrote and pushed before.
TEST_F(DsmMemory, NoLostUpdateFromAStaleReplica) {
  DsmMain dsm(main_);
  auto a = replica(dsm), b = replica(dsm);
  ASSERT_TRUE(a && b);
  constexpr uint64_t kX = 3 * kHostPageSize + 40, kY = kX + 100;  // same page
  onThread([&] {
    store<int32_t>(a->memory(), kX, 1);
    ASSERT_TRUE(a->push());
  });
  onThread([&] {
    ASSERT_TRUE(b->pull());
    EXPECT_EQ(load<int32_t>(b->memory(), kX), 1);
    store<int32_t>(b->memory(), kX, 2);
    ASSERT_TRUE(b->push());
  });
  onThread([&] {
    store<int32_t>(a->memory(), kY, 7);  // A's x is still 1, untouched since its push
    ASSERT_TRUE(a->push());
  });
  EXPECT_EQ(load<int32_t>(main_, kX), 2);
  EXPECT_EQ(load<int32_t>(main_, kY), 7);
  onThread([&] { ASSERT_TRUE(a->pull()); });
  EXPECT_EQ(load<int32_t>(a->memory(), kX), 2);
}

// (c) A counter protected by a mutex: pull after lock, push before unlock.
TEST_F(DsmMemory, CounterUnderMutexFromFourThreads) {
  constexpr int kThreads = 4, kIncrements = 1000;
  constexpr uint64_t kCounter = kWasmPageSize + 12;
  store<int32_t>(main_, kCounter, 0);
  DsmMain dsm(main_);
  std::string error;
  auto replicas = dsm.createReplicas(kThreads, error);
  ASSERT_EQ(replicas.size(), size_t(kThreads)) << error;
  std::mutex lock;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      DsmReplica& self = *replicas[t];
      for (int i = 0; i < kIncrements; ++i) {
        std::lock_guard<std::mutex> guard(lock);
        self.pull();
        store<int32_t>(self.memory(), kCounter, load<int32_t>(self.memory(), kCounter) + 1);
        // Each thread also writes a byte of its own on the counter's page.
        self.memory().base()[kCounter + 100 + uint64_t(t)] = uint8_t(i);
        self.push();
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(load<int32_t>(main_, kCounter), kThreads * kIncrements);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(main_.base()[kCounter + 100 + uint64_t(t)], uint8_t(kIncrements - 1));
    ASSERT_TRUE(replicas[t]->pull());
    EXPECT_EQ(load<int32_t>(replicas[t]->memory(), kCounter), kThreads * kIncrements);
  }
}

// (d) Four replicas add to the same double and push with a Sum region.
TEST_F(DsmMemory, SumRegionAddsEveryReplicasContribution) {
  constexpr int kThreads = 4;
  constexpr uint64_t kTotal = 2 * kHostPageSize + 8;
  store<double>(main_, kTotal, 1.0);
  DsmMain dsm(main_);
  std::string error;
  auto replicas = dsm.createReplicas(kThreads, error);
  ASSERT_EQ(replicas.size(), size_t(kThreads)) << error;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      LinearMemory& memory = replicas[t]->memory();
      // Thread t adds 0.25 * (t + 1), ten times, in two pushes.
      for (int i = 0; i < 10; ++i) {
        store<double>(memory, kTotal, load<double>(memory, kTotal) + 0.25 * (t + 1));
        if (i == 4) replicas[t]->push({{kTotal, 8, MergeOp::Sum, MergeType::F64}});
      }
      replicas[t]->push({{kTotal, 8, MergeOp::Sum, MergeType::F64}});
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(load<double>(main_, kTotal), 1.0 + 2.5 * (1 + 2 + 3 + 4));
}

// (e) The replica grows (guest malloc) and main follows on push; then main is
// larger than another replica, which grows on pull.
TEST_F(DsmMemory, GrowthInBothDirections) {
  DsmMain dsm(main_);
  auto a = replica(dsm), b = replica(dsm);
  ASSERT_TRUE(a && b);
  constexpr uint64_t kGrown = 3 * kWasmPageSize + 77;
  onThread([&] {
    ASSERT_EQ(a->memory().grow(2), 2);
    EXPECT_EQ(a->memory().base()[kGrown], 0);
    a->memory().base()[kGrown] = 0x5a;
    a->memory().base()[10] = 0x11;
    ASSERT_TRUE(a->push());
  });
  EXPECT_EQ(main_.pages(), 4u);
  EXPECT_EQ(main_.base()[kGrown], 0x5a);
  EXPECT_EQ(main_.base()[kGrown + 1], 0);
  EXPECT_EQ(main_.base()[10], 0x11);

  onThread([&] {
    ASSERT_TRUE(b->pull());
    EXPECT_EQ(b->memory().pages(), 4u);
    EXPECT_EQ(b->memory().base()[kGrown], 0x5a);
    EXPECT_EQ(b->memory().base()[10], 0x11);
    // B's grown pages are tracked: a write there reaches main.
    b->memory().base()[kGrown + 5] = 0x6b;
    b->memory().base()[2 * kWasmPageSize] = 0x7c;
    ASSERT_TRUE(b->push());
  });
  EXPECT_EQ(main_.base()[kGrown + 5], 0x6b);
  EXPECT_EQ(main_.base()[2 * kWasmPageSize], 0x7c);

  onThread([&] {
    // A's grown pages are tracked after its push too.
    a->memory().base()[kGrown + 9] = 0x3d;
    ASSERT_TRUE(a->push());
    ASSERT_TRUE(a->pull());
    EXPECT_EQ(a->memory().base()[kGrown + 5], 0x6b);
    EXPECT_EQ(a->memory().base()[2 * kWasmPageSize], 0x7c);
  });
  EXPECT_EQ(main_.base()[kGrown + 9], 0x3d);
  EXPECT_EQ(main_.base()[kGrown + 5], 0x6b);
}

TEST_F(DsmMemory, PullKeepsWritesNotYetPushed) {
  constexpr uint64_t kPage = 7 * kHostPageSize;
  constexpr uint64_t kCounter = kPage + 64;
  store<int32_t>(main_, kCounter, 10);
  DsmMain dsm(main_);
  auto c = replica(dsm), d = replica(dsm);
  ASSERT_TRUE(c && d);
  onThread([&] {
    c->memory().base()[kPage] = 0x21;
    store<int32_t>(c->memory(), kCounter, 15);  // +5, not pushed yet
  });
  onThread([&] {
    d->memory().base()[kPage + 1] = 0x22;
    store<int32_t>(d->memory(), kCounter, 13);  // +3
    ASSERT_TRUE(d->push({{kCounter, 4, MergeOp::Sum, MergeType::I32}}));
  });
  onThread([&] {
    ASSERT_TRUE(c->pull());
    EXPECT_EQ(c->memory().base()[kPage], 0x21);      // its own, unpushed
    EXPECT_EQ(c->memory().base()[kPage + 1], 0x22);  // D's, pulled
    ASSERT_TRUE(c->push({{kCounter, 4, MergeOp::Sum, MergeType::I32}}));
  });
  EXPECT_EQ(main_.base()[kPage], 0x21);
  EXPECT_EQ(main_.base()[kPage + 1], 0x22);
  EXPECT_EQ(load<int32_t>(main_, kCounter), 10 + 5 + 3);
}

// Replicas each push pages of their own (as threads push their stack pages)
// and one replica pulls. A few changed pages are copied at once; more are
// copied only when touched, whether the pull invalidated the changed runs
// one by one or (past a few runs) every clean page. Either way the reader
// sees every write, keeps its own unpushed one, and pushes only its own.
struct LazyPullCase {
  int writers;
  int pagesPerWriter;
};

class LazyPull : public DsmMemory, public testing::WithParamInterface<LazyPullCase> {};

TEST_P(LazyPull, CopiesOnlyTouchedPagesAndSeesEveryWrite) {
  const auto [writers, pagesPerWriter] = GetParam();
  const uint64_t changedPages = uint64_t(writers * pagesPerWriter);
  const bool eager = changedPages <= 32;
  ASSERT_GE(main_.grow(6), 0);  // 128 host pages
  DsmMain dsm(main_);
  auto reader = replica(dsm);
  std::vector<std::unique_ptr<DsmReplica>> others;
  for (int i = 0; i < writers; ++i) others.push_back(replica(dsm));
  // Writer i's run of pages, one page apart from the next writer's.
  auto firstPage = [&](int i) { return uint64_t(2 + i * (pagesPerWriter + 1)); };
  constexpr uint64_t kOwnPage = 1;
  onThread([&] { reader->memory().base()[kOwnPage * kHostPageSize] = 0x5a; });
  for (int i = 0; i < writers; ++i)
    onThread([&] {
      for (int p = 0; p < pagesPerWriter; ++p)
        others[i]->memory().base()[(firstPage(i) + p) * kHostPageSize + 3] = uint8_t(i + 1);
      ASSERT_TRUE(others[i]->push());
    });
  DsmStatistics before = dsmStatistics();
  onThread([&] {
    ASSERT_TRUE(reader->pull());
    uint64_t copiedAtPull = dsmStatistics().pulledPages - before.pulledPages;
    EXPECT_EQ(copiedAtPull, eager ? changedPages : 0u);
    // A page nobody changed reads as it was, without a copy.
    EXPECT_EQ(reader->memory().base()[100 * kHostPageSize], uint8_t(100 * kHostPageSize * 11));
    for (int i = 0; i < writers; i += 3)
      EXPECT_EQ(reader->memory().base()[firstPage(i) * kHostPageSize + 3], uint8_t(i + 1));
    EXPECT_EQ(dsmStatistics().pulledPages - before.pulledPages,
              eager ? changedPages : uint64_t((writers + 2) / 3));
    EXPECT_EQ(reader->memory().base()[kOwnPage * kHostPageSize], 0x5a);
    // A write to a page pulled lazily is pushed, and only it.
    reader->memory().base()[firstPage(0) * kHostPageSize + 5] = 0x77;
    ASSERT_TRUE(reader->push());
  });
  EXPECT_EQ(main_.base()[kOwnPage * kHostPageSize], 0x5a);
  EXPECT_EQ(main_.base()[firstPage(0) * kHostPageSize + 5], 0x77);
  for (int i = 0; i < writers; ++i)
    for (int p = 0; p < pagesPerWriter; ++p)
      EXPECT_EQ(main_.base()[(firstPage(i) + p) * kHostPageSize + 3], uint8_t(i + 1));
}

// Copied at once; invalidated run by run (12 runs); every clean page (40).
INSTANTIATE_TEST_SUITE_P(FewRunsOrWholeMemory, LazyPull,
                         testing::Values(LazyPullCase{4, 1}, LazyPullCase{12, 4},
                                         LazyPullCase{40, 1}));

// The kernel cannot fault a page in for a system call: prepareHostWrite
// brings an invalidated page up to date before a write(2) reads it.
TEST_F(DsmMemory, SystemCallReadsAnInvalidatedPageAfterPrepareHostWrite) {
  ASSERT_GE(main_.grow(6), 0);
  DsmMain dsm(main_);
  auto reader = replica(dsm), writer = replica(dsm);
  constexpr uint64_t kOffset = 5 * kHostPageSize;
  onThread([&] {
    // 40 changed pages: the reader's pull fetches them lazily.
    for (uint64_t page = 10; page < 50; ++page) writer->memory().base()[page * kHostPageSize] = 1;
    std::memcpy(writer->memory().base() + kOffset, "fresh", 5);
    ASSERT_TRUE(writer->push());
  });
  onThread([&] {
    DsmStatistics before = dsmStatistics();
    ASSERT_TRUE(reader->pull());
    ASSERT_EQ(dsmStatistics().pulledPages, before.pulledPages);
    int pipe[2];
    ASSERT_EQ(::pipe(pipe), 0);
    prepareHostWrite(reader->memory().base() + kOffset, 5);
    EXPECT_EQ(::write(pipe[1], reader->memory().base() + kOffset, 5), 5);
    char got[6] = {};
    EXPECT_EQ(::read(pipe[0], got, 5), 5);
    EXPECT_STREQ(got, "fresh");
    ::close(pipe[0]);
    ::close(pipe[1]);
  });
}

// A hub: `main_` plays a program's memory whose base must not move, `hub`
// the main copy made from it, and `main_` becomes a replica of `hub` in
// place.
class AdoptedReplica : public DsmMemory {
 protected:
  void SetUp() override {
    DsmMemory::SetUp();
    std::string error;
    ASSERT_TRUE(hub_.create(main_.pages(), main_.maxPages(), error)) << error;
    std::memcpy(hub_.base(), main_.base(), main_.sizeBytes());
  }

  LinearMemory hub_;
};

TEST_F(AdoptedReplica, KeepsTheMemoryInPlaceAndSyncsBothWays) {
  constexpr uint64_t kPage = 3 * kHostPageSize;
  DsmMain dsm(hub_);
  std::string error;
  uint8_t* const base = main_.base();
  auto adopted = dsm.adoptReplica(main_, error);
  ASSERT_TRUE(adopted) << error;
  EXPECT_EQ(&adopted->memory(), &main_);
  EXPECT_EQ(main_.base(), base);
  auto other = replica(dsm);
  ASSERT_TRUE(other);

  onThread([&] {
    main_.base()[kPage] = 0x41;  // tracked: not in the hub before a push
    EXPECT_EQ(hub_.base()[kPage], uint8_t(kPage * 11));
    ASSERT_TRUE(adopted->push());
  });
  EXPECT_EQ(hub_.base()[kPage], 0x41);
  EXPECT_EQ(hub_.base()[kPage + 1], uint8_t((kPage + 1) * 11));

  onThread([&] {
    ASSERT_TRUE(other->pull());
    EXPECT_EQ(other->memory().base()[kPage], 0x41);
    other->memory().base()[kPage + 1] = 0x42;
    ASSERT_TRUE(other->push());
  });
  onThread([&] {
    main_.base()[kPage + 2] = 0x43;  // not pushed yet
    ASSERT_TRUE(adopted->pull());
    EXPECT_EQ(main_.base()[kPage + 1], 0x42);
    EXPECT_EQ(main_.base()[kPage + 2], 0x43);
    ASSERT_TRUE(adopted->push());
  });
  EXPECT_EQ(hub_.base()[kPage + 1], 0x42);
  EXPECT_EQ(hub_.base()[kPage + 2], 0x43);

  // Destroying the replica leaves the memory to its owner, writable and
  // with everything it held.
  adopted.reset();
  EXPECT_EQ(main_.base(), base);
  main_.base()[kPage + 3] = 0x44;
  EXPECT_EQ(main_.base()[kPage + 1], 0x42);
  EXPECT_EQ(main_.base()[kPage + 3], 0x44);
}

TEST_F(AdoptedReplica, GrowsInPlaceWhenTheHubGrows) {
  constexpr uint64_t kGrown = 3 * kWasmPageSize + 5;
  DsmMain dsm(hub_);
  std::string error;
  uint8_t* const base = main_.base();
  auto adopted = dsm.adoptReplica(main_, error);
  ASSERT_TRUE(adopted) << error;
  auto other = replica(dsm);
  ASSERT_TRUE(other);
  onThread([&] {
    ASSERT_EQ(other->memory().grow(2), 2);
    other->memory().base()[kGrown] = 0x5a;
    ASSERT_TRUE(other->push());
  });
  onThread([&] {
    ASSERT_TRUE(adopted->pull());
    EXPECT_EQ(main_.pages(), 4u);
    EXPECT_EQ(main_.base(), base);
    EXPECT_EQ(main_.base()[kGrown], 0x5a);
    main_.base()[kGrown + 1] = 0x6b;  // grown pages are tracked too
    ASSERT_TRUE(adopted->push());
  });
  EXPECT_EQ(hub_.base()[kGrown + 1], 0x6b);
}

TEST_F(AdoptedReplica, RefusesAMemoryOfAnotherSize) {
  ASSERT_EQ(main_.grow(1), 2);
  DsmMain dsm(hub_);
  std::string error;
  EXPECT_FALSE(dsm.adoptReplica(main_, error));
  EXPECT_FALSE(error.empty());
}

TEST_F(AdoptedReplica, StatisticsCountReplicasPushesAndPulls) {
  DsmStatistics before = dsmStatistics();
  DsmMain dsm(hub_);
  std::string error;
  auto adopted = dsm.adoptReplica(main_, error);
  ASSERT_TRUE(adopted) << error;
  auto other = replica(dsm);
  ASSERT_TRUE(other);
  onThread([&] {
    main_.base()[9] = 1;
    main_.base()[10] = 2;
    ASSERT_TRUE(adopted->push());
    ASSERT_TRUE(adopted->push());  // nothing new
  });
  onThread([&] { ASSERT_TRUE(other->pull()); });
  DsmStatistics after = dsmStatistics();
  EXPECT_EQ(after.replicas - before.replicas, 2u);
  EXPECT_EQ(after.pushes - before.pushes, 1u);
  EXPECT_EQ(after.pushedBytes - before.pushedBytes, 2u);
  EXPECT_EQ(after.pulls - before.pulls, 1u);
  EXPECT_EQ(after.pulledPages - before.pulledPages, 1u);
}

// pagesChangedSince names exactly the host pages pushes changed after a
// version, and the version it read.
TEST_F(DsmMemory, PagesChangedSinceAVersion) {
  DsmMain dsm(main_);
  auto r = replica(dsm);
  ASSERT_TRUE(r);
  uint64_t now = 99;
  EXPECT_TRUE(dsm.pagesChangedSince(0, now).empty());
  EXPECT_EQ(now, 0u);
  r->memory().base()[3 * kHostPageSize + 5] ^= 0xff;
  ASSERT_TRUE(r->push());
  r->memory().base()[17 * kHostPageSize] ^= 0xff;
  r->memory().base()[31 * kHostPageSize - 1] ^= 0xff;  // the last byte of page 30
  ASSERT_TRUE(r->push());
  EXPECT_EQ(dsm.pagesChangedSince(0, now), (std::vector<uint64_t>{3, 17, 30}));
  EXPECT_EQ(now, 2u);
  EXPECT_EQ(dsm.pagesChangedSince(1, now), (std::vector<uint64_t>{17, 30}));
  EXPECT_TRUE(dsm.pagesChangedSince(2, now).empty());
}

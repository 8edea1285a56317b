//===- WorldRendezvousTest.cpp - cross-host rendezvous between two Worlds -===//
//
// Two Worlds of one two-rank job, rank 0 on the first and rank 1 on the
// second, joined by an in-process link that hands each RemoteRanks call to
// the other World's entry point the way MpiPeerLink does over a socket.
// A message at the rendezvous threshold leaves only its envelope until a
// receive matches it; the data then lands in the receive buffer (or a
// temporary for a strided or too-small receive), and the send completes
// once it is written. The entry points refuse ids, sizes and hosts that no
// waiting send or receive has, as the link's hostile-frame checks rely on.
// A message below the threshold goes eagerly only within the eager credit
// its receiving host granted, and by rendezvous in its place otherwise.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "mpi/MpiAbi.h"
#include "mpi/RemoteRanks.h"
#include "mpi/World.h"

using namespace synergy::mpi;

namespace {

constexpr int64_t kThresholdBytes = 1024;

// Carries calls to the World of the other host at once; the clear-to-send
// may be held back, to look at a receive that waits for its data. Eager
// messages fail the test unless `carriesEager`; `credit` is what is left
// of the other host's grant, and `back` the link the other way, whose
// credit this host's receives give back.
class InProcessLink final : public RemoteRanks {
 public:
  World* peer = nullptr;
  InProcessLink* back = nullptr;
  bool holdClearToSend = false;
  bool carriesEager = false;
  int eagerMessages = 0;
  int64_t credit = 0;
  struct Clear {
    int sender, receiver;
    uint64_t sendId, receiveId;
  };
  std::optional<Clear> held;
  // Every clear-to-send held back, in order.
  std::vector<Clear> allHeld;
  std::atomic<int> clearsToSend{0};
  int requestsToSend = 0;

  void send(const RemoteMessage& message,
            synergy::util::FunctionRef<void(uint8_t*)> pack) override {
    std::unique_ptr<uint8_t[]> frame(new uint8_t[size_t(message.envelope.bytes)]);
    pack(frame.get());
    carryEager(message, std::move(frame));
  }
  void sendInPlace(const RemoteMessage& message, const std::vector<LentData>& pieces,
                   std::function<void()> written) override {
    std::unique_ptr<uint8_t[]> frame(new uint8_t[size_t(message.envelope.bytes)]);
    uint8_t* out = frame.get();
    for (const LentData& piece : pieces) {
      std::memcpy(out, piece.data, size_t(piece.bytes));
      out += piece.bytes;
    }
    carryEager(message, std::move(frame));
    written();
  }
  void carryEager(const RemoteMessage& message, std::unique_ptr<uint8_t[]> frame) {
    if (!carriesEager) {
      ADD_FAILURE() << "an eager message in a rendezvous test";
      return;
    }
    ++eagerMessages;
    peer->deliverRemote(message, std::move(frame), 0);
  }
  bool takeEagerCredit(int, int64_t bytes) override {
    if (credit < bytes) return false;
    credit -= bytes;
    return true;
  }
  void returnEagerCredit(int, int64_t bytes) override { back->credit += bytes; }
  void sendRequestToSend(const RemoteMessage& message) override {
    ++requestsToSend;
    peer->deliverRequestToSend(message);
  }
  void clearToSend(int sender, uint64_t sendId, int receiver, uint64_t receiveId) override {
    held = Clear{sender, receiver, sendId, receiveId};
    ++clearsToSend;
    if (holdClearToSend)
      allHeld.push_back(*held);
    else
      releaseClearToSend();
  }
  void releaseClearToSend() {
    std::string reason;
    EXPECT_TRUE(peer->remoteClearToSend(held->sender, held->sendId, held->receiver,
                                        held->receiveId, reason))
        << reason;
  }
  void sendRendezvousData(int receiver, uint64_t receiveId, const uint8_t* data, int64_t bytes,
                          std::function<void()> written) override {
    std::string reason;
    uint8_t* target = peer->remoteRendezvousTarget(hostOf(1 - receiver), receiver, receiveId,
                                                   bytes, reason);
    ASSERT_NE(target, nullptr) << reason;
    std::memcpy(target, data, size_t(bytes));
    peer->remoteRendezvousLanded(receiveId);
    written();
  }
  // A synchronous send's match, acknowledged to the sending host at once.
  int acknowledgedMatches = 0;
  void acknowledgeMatch(int, uint64_t matchId, int64_t creditBytes) override {
    ++acknowledgedMatches;
    back->credit += creditBytes;
    EXPECT_TRUE(peer->remoteSendMatched(matchId));
  }
  void abortJob(int) override {}
  int hostOf(int worldRank) const override { return worldRank; }
  int64_t maxMessageBytes() const override { return 1 << 20; }
  void sendRma(const RemoteRmaOp&, synergy::util::FunctionRef<void(uint8_t*)>) override {}
  void rmaDone(int, uint64_t, const uint8_t*, int64_t) override {}
  int64_t maxRmaBytes() const override { return 0; }
  std::optional<std::string> checkJobDeadlock(int) override { return std::nullopt; }
};

struct TwoHosts {
  World first{2, false};
  World second{2, false};
  InProcessLink toSecond, toFirst;
  explicit TwoHosts(int64_t threshold = kThresholdBytes) {
    setenv("SYNERGY_MPI_RENDEZVOUS_BYTES", std::to_string(threshold).c_str(), 1);
    toSecond.peer = &second;
    toFirst.peer = &first;
    toSecond.back = &toFirst;
    toFirst.back = &toSecond;
    first.attachRemoteRanks(toSecond, {false, true});
    second.attachRemoteRanks(toFirst, {true, false});
    unsetenv("SYNERGY_MPI_RENDEZVOUS_BYTES");
  }
};

std::shared_ptr<Request> request(World& world, Request::Kind kind, int owner, int peer,
                                 std::vector<uint8_t>& data, const Layout& type, int64_t count) {
  auto made = std::make_shared<Request>();
  made->kind = kind;
  made->owner = owner;
  made->buffer = data.data();
  setType(*made, type);
  made->count = count;
  made->bytes = type->size * count;
  made->context = world.worldComm()->context;
  made->comm = world.worldComm().get();
  made->peer = peer;
  made->senderRank = owner;
  made->tag = 5;
  return made;
}

std::vector<uint8_t> numbered(size_t bytes) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = uint8_t(i * 7 + 3);
  return data;
}

const Layout& bytes() {
  static const Layout layout = predefinedLayout(synergy::mpi::abi::kTypeByte);
  return layout;
}

TEST(WorldRendezvousTest, DataLandsInTheReceiveBufferOnlyAfterTheMatch) {
  TwoHosts hosts;
  std::vector<uint8_t> sent = numbered(4096), received(4096);
  auto send = request(hosts.first, Request::Kind::Send, 0, 1, sent, bytes(), 4096);
  hosts.first.startSend(send, 1);
  EXPECT_EQ(hosts.toSecond.requestsToSend, 1);
  EXPECT_FALSE(isCompleteNow(*send)) << "a rendezvous send completes only once its data is written";
  auto probed = hosts.second.probe(1, hosts.second.worldComm()->context, synergy::mpi::abi::kAnySource,
                                   synergy::mpi::abi::kAnyTag);
  ASSERT_TRUE(probed);
  EXPECT_EQ(probed->bytes, 4096) << "a probe sees the rendezvous message's size";
  auto recv = request(hosts.second, Request::Kind::Recv, 1, 0, received, bytes(), 4096);
  hosts.second.startRecv(recv);
  ASSERT_TRUE(isCompleteNow(*recv));
  EXPECT_EQ(received, sent);
  EXPECT_EQ(recv->statusBytes, 4096);
  EXPECT_EQ(recv->statusSource, 0);
  EXPECT_EQ(recv->statusTag, 5);
  EXPECT_TRUE(isCompleteNow(*send));
}

TEST(WorldRendezvousTest, StridedAndShortReceivesGoThroughATemporary) {
  TwoHosts hosts;
  std::vector<uint8_t> sent = numbered(2048);
  auto send = request(hosts.first, Request::Kind::Send, 0, 1, sent, bytes(), 2048);
  hosts.first.startSend(send, 1);
  // Every other byte of a 4096-byte buffer.
  std::vector<TypeBlock> blocks;
  for (int64_t i = 0; i < 2048; ++i) blocks.push_back({bytes(), 1, 2 * i});
  Layout strided = buildDerivedLayout(blocks, /*combiner=*/0, /*padToAlignment=*/false);
  ASSERT_TRUE(strided);
  ASSERT_FALSE(strided->isContiguous());
  std::vector<uint8_t> received(4096, 0);
  auto recv = request(hosts.second, Request::Kind::Recv, 1, 0, received, strided, 1);
  hosts.second.startRecv(recv);
  ASSERT_TRUE(isCompleteNow(*recv));
  for (size_t i = 0; i < 2048; ++i) ASSERT_EQ(received[2 * i], sent[i]) << "byte " << i;
  EXPECT_EQ(received[1], 0);

  auto secondSend = request(hosts.first, Request::Kind::Send, 0, 1, sent, bytes(), 2048);
  hosts.first.startSend(secondSend, 1);
  std::vector<uint8_t> small(1500);
  auto truncated = request(hosts.second, Request::Kind::Recv, 1, 0, small, bytes(), 1500);
  hosts.second.startRecv(truncated);
  ASSERT_TRUE(isCompleteNow(*truncated));
  EXPECT_EQ(truncated->statusError, synergy::mpi::abi::kErrTruncate);
  EXPECT_EQ(truncated->statusBytes, 1500);
  EXPECT_TRUE(std::equal(small.begin(), small.end(), sent.begin()));
}

TEST(WorldRendezvousTest, RefusesIdsSizesAndHostsThatNothingWaitsFor) {
  TwoHosts hosts;
  std::string reason;
  EXPECT_FALSE(hosts.first.remoteClearToSend(0, 1, 1, 1, reason));
  EXPECT_EQ(reason, "MpiClearToSend for no rendezvous send 1 of rank 0 to rank 1");
  EXPECT_EQ(hosts.second.remoteRendezvousTarget(0, 1, 1, 10, reason), nullptr);

  std::vector<uint8_t> sent = numbered(2048), received(2048);
  auto send = request(hosts.first, Request::Kind::Send, 0, 1, sent, bytes(), 2048);
  hosts.first.startSend(send, 1);
  hosts.toFirst.holdClearToSend = true;
  auto recv = request(hosts.second, Request::Kind::Recv, 1, 0, received, bytes(), 2048);
  hosts.second.startRecv(recv);
  ASSERT_TRUE(hosts.toFirst.held);
  InProcessLink::Clear clear = *hosts.toFirst.held;
  // A clear-to-send from the wrong receiver or with a zero receive id.
  EXPECT_FALSE(hosts.first.remoteClearToSend(0, clear.sendId, 0, clear.receiveId, reason));
  EXPECT_FALSE(hosts.first.remoteClearToSend(0, clear.sendId, 1, 0, reason));
  // Data of the wrong size, from the wrong host, or for the wrong rank.
  EXPECT_EQ(hosts.second.remoteRendezvousTarget(0, 1, clear.receiveId, 2047, reason), nullptr);
  EXPECT_EQ(reason, "MpiRendezvousData of 2047 bytes for receive " +
                        std::to_string(clear.receiveId) +
                        " of rank 1, which does not wait for them from this host");
  EXPECT_EQ(hosts.second.remoteRendezvousTarget(1, 1, clear.receiveId, 2048, reason), nullptr);
  EXPECT_EQ(hosts.second.remoteRendezvousTarget(0, 0, clear.receiveId, 2048, reason), nullptr);
  EXPECT_FALSE(isCompleteNow(*recv));
  hosts.toFirst.releaseClearToSend();
  EXPECT_TRUE(isCompleteNow(*recv));
  EXPECT_EQ(received, sent);
  // Once cleared and landed, neither id is known any more.
  EXPECT_FALSE(hosts.first.remoteClearToSend(0, clear.sendId, 1, clear.receiveId, reason));
  EXPECT_EQ(hosts.second.remoteRendezvousTarget(0, 1, clear.receiveId, 2048, reason), nullptr);
}

// A rendezvous message whose sending host left the job (its ranks ended
// with the send incomplete) can never arrive: the receive that matches it
// ends the job, whether it matched before the host left or after.
TEST(WorldRendezvousTest, AMessageFromAHostThatLeftEndsTheJobInsteadOfWaiting) {
  const std::string expected =
      "rank 1: the message of 2048 bytes from rank 0 that it received cannot arrive: the ranks "
      "of rank 0's host ended without sending it (a send never completed)";
  {
    TwoHosts hosts;
    std::vector<uint8_t> sent = numbered(2048), received(2048);
    auto send = request(hosts.first, Request::Kind::Send, 0, 1, sent, bytes(), 2048);
    hosts.first.startSend(send, 1);
    hosts.second.remoteHostEnded(0);
    auto recv = request(hosts.second, Request::Kind::Recv, 1, 0, received, bytes(), 2048);
    hosts.second.startRecv(recv);
    EXPECT_FALSE(hosts.toFirst.held) << "a clear-to-send to a host that left";
    EXPECT_FALSE(isCompleteNow(*recv));
    EXPECT_EQ(hosts.second.abortStatus(), synergy::mpi::abi::kErrOther);
    EXPECT_EQ(hosts.second.takeAbortMessage(), expected);
  }
  {
    TwoHosts hosts;
    std::vector<uint8_t> sent = numbered(2048), received(2048);
    auto send = request(hosts.first, Request::Kind::Send, 0, 1, sent, bytes(), 2048);
    hosts.first.startSend(send, 1);
    hosts.toFirst.holdClearToSend = true;
    auto recv = request(hosts.second, Request::Kind::Recv, 1, 0, received, bytes(), 2048);
    hosts.second.startRecv(recv);
    ASSERT_TRUE(hosts.toFirst.held);
    hosts.second.remoteHostEnded(0);
    EXPECT_FALSE(isCompleteNow(*recv));
    EXPECT_EQ(hosts.second.abortStatus(), synergy::mpi::abi::kErrOther);
    EXPECT_EQ(hosts.second.takeAbortMessage(), expected);
    // The receive is forgotten: data that came now would be refused.
    std::string reason;
    EXPECT_EQ(hosts.second.remoteRendezvousTarget(0, 1, hosts.toFirst.held->receiveId, 2048,
                                                  reason),
              nullptr);
  }
}

// A shared receive (every one but the spare record MPI_Irecv tries first)
// asks for its data and returns; whoever lands the data completes it. So a
// window of receives has every clear-to-send out before any data has come,
// and the sending host writes the messages back to back, rather than one
// round trip each.
TEST(WorldRendezvousTest, AWindowOfReceivesAsksForAllItsDataBeforeAnyLands) {
  TwoHosts hosts;
  hosts.toFirst.holdClearToSend = true;
  constexpr int kWindow = 3;
  std::vector<std::vector<uint8_t>> sent, received;
  std::vector<std::shared_ptr<Request>> sends, recvs;
  for (int i = 0; i < kWindow; ++i) {
    sent.push_back(numbered(2048));
    sent.back()[0] = uint8_t(i + 1);
    received.emplace_back(2048);
    sends.push_back(request(hosts.first, Request::Kind::Send, 0, 1, sent.back(), bytes(), 2048));
    hosts.first.startSend(sends.back(), 1);
  }
  // Before, each receive waited in its match for its data: the thread is
  // there so that this test fails rather than hangs then.
  std::thread receiver([&] {
    for (int i = 0; i < kWindow; ++i) {
      recvs.push_back(
          request(hosts.second, Request::Kind::Recv, 1, 0, received[size_t(i)], bytes(), 2048));
      hosts.second.startRecv(recvs.back());
    }
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (hosts.toFirst.clearsToSend < kWindow && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  EXPECT_EQ(hosts.toFirst.clearsToSend, kWindow) << "clear-to-sends out before any data landed";
  if (hosts.toFirst.clearsToSend < kWindow) {
    hosts.toFirst.holdClearToSend = false;
    hosts.toFirst.releaseClearToSend();
    receiver.join();
    return;
  }
  receiver.join();
  for (int i = 0; i < kWindow; ++i) EXPECT_FALSE(isCompleteNow(*recvs[size_t(i)]));
  for (const InProcessLink::Clear& clear : hosts.toFirst.allHeld) {
    hosts.toFirst.held = clear;
    hosts.toFirst.releaseClearToSend();
  }
  for (int i = 0; i < kWindow; ++i) {
    EXPECT_TRUE(isCompleteNow(*recvs[size_t(i)]));
    EXPECT_TRUE(isCompleteNow(*sends[size_t(i)]));
    EXPECT_EQ(received[size_t(i)], sent[size_t(i)]) << "message " << i;
    EXPECT_EQ(recvs[size_t(i)]->statusBytes, 2048);
  }
}

// A matched probe (MPI_Mprobe, MPI_Improbe) takes the envelope of a
// message whose data is on another host; MPI_Mrecv and MPI_Imrecv then
// receive it into a shared receive, which asks for the data and returns,
// as a posted receive does, rather than waiting in the match: two probed
// messages have both their clear-to-sends out before any data has landed,
// and each landing completes its receive, through a temporary for a
// strided one.
TEST(WorldRendezvousTest, AMatchedProbeReceiveAsksForItsDataAndReturns) {
  TwoHosts hosts;
  hosts.toFirst.holdClearToSend = true;
  std::vector<uint8_t> sentA = numbered(2048), sentB = numbered(4096);
  sentB[0] = 99;
  auto sendA = request(hosts.first, Request::Kind::Send, 0, 1, sentA, bytes(), 2048);
  auto sendB = request(hosts.first, Request::Kind::Send, 0, 1, sentB, bytes(), 4096);
  hosts.first.startSend(sendA, 1);
  hosts.first.startSend(sendB, 1);
  uint32_t context = hosts.second.worldComm()->context;
  auto takenA = hosts.second.takeMatching(1, context, 0, 5);
  auto takenB = hosts.second.takeMatching(1, context, 0, 5);
  ASSERT_TRUE(takenA && takenB);
  EXPECT_EQ(takenA->envelope.bytes, 2048) << "matched in send order";
  EXPECT_EQ(takenB->envelope.bytes, 4096);
  EXPECT_EQ(hosts.toFirst.clearsToSend, 0) << "a matched probe asks for no data";
  // The second lands through a temporary: every other byte of 8192.
  std::vector<TypeBlock> blocks;
  for (int64_t i = 0; i < 4096; ++i) blocks.push_back({bytes(), 1, 2 * i});
  Layout strided = buildDerivedLayout(blocks, /*combiner=*/0, /*padToAlignment=*/false);
  ASSERT_TRUE(strided);
  std::vector<uint8_t> receivedA(2048), receivedB(2 * 4096, 0xEE);
  auto recvA = request(hosts.second, Request::Kind::Recv, 1, 0, receivedA, bytes(), 2048);
  auto recvB = request(hosts.second, Request::Kind::Recv, 1, 0, receivedB, strided, 1);
  // Before, the receive waited in the match for its data: the thread is
  // there so that this test fails rather than hangs then.
  std::thread receiver([&] {
    hosts.second.receiveMatched(*takenA, recvA);
    hosts.second.receiveMatched(*takenB, recvB);
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (hosts.toFirst.clearsToSend < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  EXPECT_EQ(hosts.toFirst.clearsToSend, 2) << "clear-to-sends out before any data landed";
  if (hosts.toFirst.clearsToSend < 2) {
    hosts.toFirst.holdClearToSend = false;
    hosts.toFirst.releaseClearToSend();
    receiver.join();
    return;
  }
  receiver.join();
  EXPECT_FALSE(isCompleteNow(*recvA));
  EXPECT_FALSE(isCompleteNow(*recvB));
  for (const InProcessLink::Clear& clear : hosts.toFirst.allHeld) {
    hosts.toFirst.held = clear;
    hosts.toFirst.releaseClearToSend();
  }
  ASSERT_TRUE(isCompleteNow(*recvA));
  ASSERT_TRUE(isCompleteNow(*recvB));
  EXPECT_EQ(receivedA, sentA);
  EXPECT_EQ(recvA->statusBytes, 2048);
  EXPECT_EQ(recvB->statusBytes, 4096);
  for (size_t i = 0; i < 4096; ++i) {
    ASSERT_EQ(receivedB[2 * i], sentB[i]) << "byte " << i;
    ASSERT_EQ(receivedB[2 * i + 1], 0xEE) << "gap after byte " << i;
  }
  EXPECT_TRUE(isCompleteNow(*sendA));
  EXPECT_TRUE(isCompleteNow(*sendB));
}

TEST(WorldRendezvousTest, AMessageBeyondTheEagerCreditGoesByRendezvousInItsPlace) {
  TwoHosts hosts(1 << 20);
  hosts.toSecond.carriesEager = true;
  hosts.toSecond.credit = 5000;
  constexpr int kMessages = 4;
  std::vector<std::vector<uint8_t>> sent;
  std::vector<std::shared_ptr<Request>> sends;
  for (int i = 0; i < kMessages; ++i) {
    sent.push_back(numbered(2000));
    sent.back()[0] = uint8_t(i);
    sends.push_back(request(hosts.first, Request::Kind::Send, 0, 1, sent.back(), bytes(), 2000));
    sends.back()->tag = i + 1;
    hosts.first.startSend(sends.back(), 1);
  }
  // Two fit the credit of 5000 bytes; the other two left their envelopes.
  EXPECT_EQ(hosts.toSecond.eagerMessages, 2);
  EXPECT_EQ(hosts.toSecond.requestsToSend, 2);
  EXPECT_EQ(hosts.toSecond.credit, 1000);
  EXPECT_TRUE(isCompleteNow(*sends[1]));
  EXPECT_FALSE(isCompleteNow(*sends[2])) << "a rendezvous send waits for its receive";
  // A send copied at once (World::sendEager) that the credit does not
  // cover is left to the caller's request; one that charges nothing goes.
  uint32_t context = hosts.first.worldComm()->context;
  EXPECT_FALSE(hosts.first.sendEager(0, Envelope{context, 0, 9, 2000}, sent[0].data(), *bytes(),
                                     2000, 1, /*mayDefer=*/false));
  EXPECT_TRUE(hosts.first.sendEager(0, Envelope{context, 0, kMessages + 1, 100}, sent[0].data(),
                                    *bytes(), 100, 1, /*mayDefer=*/false));
  EXPECT_EQ(hosts.toSecond.credit, 1000);
  // Received in send order, eager and rendezvous alike; each eager one
  // gives its credit back.
  for (int i = 0; i <= kMessages; ++i) {
    std::vector<uint8_t> received(2000);
    auto recv = request(hosts.second, Request::Kind::Recv, 1, 0, received, bytes(), 2000);
    recv->tag = synergy::mpi::abi::kAnyTag;
    hosts.second.startRecv(recv);
    ASSERT_TRUE(isCompleteNow(*recv)) << "message " << i;
    EXPECT_EQ(recv->statusTag, i + 1);
    if (i < kMessages) {
      EXPECT_EQ(received, sent[size_t(i)]) << "message " << i;
      EXPECT_EQ(hosts.toSecond.credit, i == 0 ? 3000 : 5000) << "after message " << i;
    }
  }
  for (const auto& send : sends) EXPECT_TRUE(isCompleteNow(*send));
  // With its credit back, the next message goes eagerly again.
  auto last = request(hosts.first, Request::Kind::Send, 0, 1, sent[0], bytes(), 2000);
  hosts.first.startSend(last, 1);
  EXPECT_EQ(hosts.toSecond.eagerMessages, 4) << "2, the one of 100 bytes and this one";
  EXPECT_EQ(hosts.toSecond.requestsToSend, 2);
}

TEST(WorldRendezvousTest, AnEmptySynchronousSendCompletesWhenMatched) {
  // It charges no credit, but its sender still waits for the match.
  TwoHosts hosts(1 << 20);
  hosts.toSecond.carriesEager = true;
  hosts.toSecond.credit = 5000;
  std::vector<uint8_t> nothing(1), received(1);
  auto send = request(hosts.first, Request::Kind::Send, 0, 1, nothing, bytes(), 0);
  send->synchronous = true;
  hosts.first.startSend(send, 1);
  EXPECT_EQ(hosts.toSecond.eagerMessages, 1);
  EXPECT_FALSE(isCompleteNow(*send)) << "complete before its receive";
  auto recv = request(hosts.second, Request::Kind::Recv, 1, 0, received, bytes(), 1);
  hosts.second.startRecv(recv);
  ASSERT_TRUE(isCompleteNow(*recv));
  EXPECT_EQ(hosts.toFirst.acknowledgedMatches, 1);
  EXPECT_TRUE(isCompleteNow(*send));
  EXPECT_EQ(hosts.toSecond.credit, 5000);
}

}  // namespace

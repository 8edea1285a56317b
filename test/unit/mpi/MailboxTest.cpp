//===- MailboxTest.cpp - MPI message channels and receiver-side matching ---===//
//
// The ring between two ranks holds a bounded number of messages; these
// tests send many more than that before receiving, mix eager and
// rendezvous messages, and drain from a second thread while the sender is
// still sending, and check that every (source, tag) stream keeps its send
// order and that rendezvous sends complete only when they match, also when
// nonblocking sends leave their messages unpublished for a while.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <thread>

#include "mpi/Mailbox.h"
#include "mpi/MpiAbi.h"
#include "mpi/World.h"

using namespace synergy::mpi;

namespace {

constexpr int64_t kEagerLimit = 64;
constexpr uint32_t kContext = 7;

// A request of rank `owner` over `data` as bytes, in kContext.
std::shared_ptr<Request> byteRequest(std::vector<int32_t>& data, Request::Kind kind, int owner) {
  auto request = std::make_shared<Request>();
  request->kind = kind;
  request->owner = owner;
  request->buffer = reinterpret_cast<uint8_t*>(data.data());
  setType(*request, predefinedLayout(synergy::mpi::abi::kTypeByte));
  request->count = int64_t(data.size() * 4);
  request->bytes = request->count;
  request->context = kContext;
  return request;
}

std::shared_ptr<Request> makeSend(std::vector<int32_t>& data, int tag, bool synchronous) {
  auto send = byteRequest(data, Request::Kind::Send, 1);
  send->senderRank = 1;
  send->tag = tag;
  send->synchronous = synchronous;
  return send;
}

std::shared_ptr<Request> makeRecv(std::vector<int32_t>& buffer, int source, int tag) {
  auto recv = byteRequest(buffer, Request::Kind::Recv, 0);
  recv->peer = source;
  recv->tag = tag;
  return recv;
}

// Message i: tag i % 3, i+1 ints (so some are rendezvous), each int i.
std::vector<int32_t> payload(int i) { return std::vector<int32_t>(size_t(i % 40 + 1), i); }

TEST(MailboxTest, KeepsOrderPastAFullRing) {
  int matchedSends = 0;
  Mailbox box(2, [&](Request& send) {
    ++matchedSends;
    markComplete(send);
  });
  constexpr int kCount = 1000;
  std::vector<std::vector<int32_t>> data;
  std::vector<std::shared_ptr<Request>> sends;
  for (int i = 0; i < kCount; ++i) data.push_back(payload(i));
  int eager = 0;
  for (int i = 0; i < kCount; ++i) {
    sends.push_back(makeSend(data[i], i % 3, i % 100 == 3));
    if (box.send(1, sends.back(), kEagerLimit)) {
      markComplete(*sends.back());
      ++eager;
    }
  }
  EXPECT_GT(eager, 0);
  EXPECT_LT(eager, kCount);
  std::vector<int32_t> buffer(64);
  // Tag 2 first, by tag; then the rest with MPI_ANY_TAG.
  for (int i = 2; i < kCount; i += 3) {
    auto recv = makeRecv(buffer, 1, 2);
    box.drain();
    auto probed = box.probe(kContext, 1, 2);
    box.post(recv);
    ASSERT_TRUE(probed);
    ASSERT_TRUE(isCompleteNow(*recv)) << i;
    EXPECT_EQ(probed->bytes, recv->statusBytes);
    EXPECT_EQ(recv->statusTag, 2);
    EXPECT_EQ(recv->statusBytes, int64_t(payload(i).size() * 4));
    EXPECT_EQ(buffer[0], i);
  }
  for (int i = 0; i < kCount; ++i) {
    if (i % 3 == 2) continue;
    auto recv = makeRecv(buffer, synergy::mpi::abi::kAnySource, synergy::mpi::abi::kAnyTag);
    box.post(recv);
    ASSERT_TRUE(isCompleteNow(*recv)) << i;
    EXPECT_EQ(recv->statusTag, i % 3);
    EXPECT_EQ(recv->statusSource, 1);
    EXPECT_EQ(buffer[0], i);
  }
  EXPECT_EQ(matchedSends, kCount - eager);
  for (auto& send : sends) EXPECT_TRUE(isCompleteNow(*send));
  box.drain();
  EXPECT_FALSE(box.probe(kContext, synergy::mpi::abi::kAnySource, synergy::mpi::abi::kAnyTag));
}

TEST(MailboxTest, ReceivesPostedFirstMatchInPostingOrder) {
  Mailbox box(2, [](Request& send) { markComplete(send); });
  std::vector<int32_t> first(64), second(64);
  auto any = makeRecv(first, synergy::mpi::abi::kAnySource, synergy::mpi::abi::kAnyTag);
  auto byTag = makeRecv(second, 1, 5);
  box.post(any);
  box.post(byTag);
  auto data = payload(4);
  auto send = makeSend(data, 5, false);
  box.send(1, send, kEagerLimit);
  box.drain();
  EXPECT_TRUE(isCompleteNow(*any));
  EXPECT_FALSE(isCompleteNow(*byTag));
}

// A receive being posted takes a message waiting in the ring only when no
// receive posted before it fits that message.
TEST(MailboxTest, ReceiveBeingPostedRanksAfterPostedOnes) {
  Mailbox box(2, [](Request& send) { markComplete(send); });
  std::vector<int32_t> first(64), second(64), third(64);
  auto byTag = makeRecv(first, 1, 5);
  box.post(byTag);
  EXPECT_FALSE(isCompleteNow(*byTag));
  auto five = payload(5), six = payload(6), seven = payload(7);
  box.send(1, makeSend(five, 5, false), kEagerLimit);
  box.send(1, makeSend(six, 6, false), kEagerLimit);
  box.send(1, makeSend(seven, 7, false), kEagerLimit);
  auto any = makeRecv(second, synergy::mpi::abi::kAnySource, synergy::mpi::abi::kAnyTag);
  box.post(any);
  ASSERT_TRUE(isCompleteNow(*byTag));
  ASSERT_TRUE(isCompleteNow(*any));
  EXPECT_EQ(first[0], 5);
  EXPECT_EQ(byTag->statusTag, 5);
  EXPECT_EQ(second[0], 6);
  EXPECT_EQ(any->statusTag, 6);
  // The third message stayed in the ring, behind the one `any` took.
  EXPECT_FALSE(box.probe(kContext, 1, 7));
  auto last = makeRecv(third, 1, 7);
  box.post(last);
  ASSERT_TRUE(isCompleteNow(*last));
  EXPECT_EQ(third[0], 7);
  EXPECT_EQ(last->statusBytes, int64_t(seven.size() * 4));
}

// post() in two steps: receiveNow() completes a receive whose message has
// arrived, without the mailbox keeping it; one it cannot complete waits
// among the posted receives once given to postUnmatched().
TEST(MailboxTest, ReceiveNowTakesOnlyArrivedMessages) {
  Mailbox box(2, [](Request& send) { markComplete(send); });
  std::vector<int32_t> first(64), second(64), third(64);
  auto early = makeRecv(first, 1, 6);
  bool mustShare = true;
  EXPECT_FALSE(box.receiveNow(*early, mustShare));
  EXPECT_FALSE(mustShare);
  EXPECT_FALSE(isCompleteNow(*early));
  box.postUnmatched(early);
  auto five = payload(5), six = payload(6), sixAgain = payload(12);
  box.send(1, makeSend(five, 5, false), kEagerLimit);
  box.send(1, makeSend(six, 6, false), kEagerLimit);
  box.send(1, makeSend(sixAgain, 6, false), kEagerLimit);
  auto byTag = makeRecv(second, 1, 6);
  // The posted receive takes the first tag-6 message, this one the second;
  // the tag-5 message, ahead of both, waits as unexpected.
  ASSERT_TRUE(box.receiveNow(*byTag, mustShare));
  ASSERT_TRUE(isCompleteNow(*early));
  EXPECT_EQ(first[0], 6);
  EXPECT_EQ(second[0], 12);
  EXPECT_EQ(byTag->statusBytes, int64_t(sixAgain.size() * 4));
  ASSERT_TRUE(box.probe(kContext, 1, 5));
  auto any = makeRecv(third, synergy::mpi::abi::kAnySource, synergy::mpi::abi::kAnyTag);
  ASSERT_TRUE(box.receiveNow(*any, mustShare));
  EXPECT_EQ(third[0], 5);
  EXPECT_EQ(any->statusTag, 5);
  EXPECT_FALSE(box.probe(kContext, 1, 5));
}

// The envelope of a message whose data is still on another host (a
// rendezvous from a rank there) matches only a shared receive, which asks
// for the data and stays pending until it lands: receiveNow() leaves it to
// post(), and with it every later message of that receive's, so that none
// overtakes it.
TEST(MailboxTest, AMessageWhoseDataIsOnAnotherHostMatchesOnlyASharedReceive) {
  std::vector<Request*> asked;
  Mailbox box(
      2, [](Request& send) { markComplete(send); },
      [&](Request& proxy, const std::shared_ptr<Request>& recv) {
        asked.push_back(&proxy);
        EXPECT_EQ(recv->tag, 6);
      });
  std::vector<int32_t> remote(1024, 3), eager = payload(6), buffer(1024), later(64);
  auto proxy = makeSend(remote, 6, false);
  proxy->awaitsRemoteData = true;
  EXPECT_FALSE(box.send(1, proxy, /*eagerLimit=*/0));
  box.send(1, makeSend(eager, 6, false), kEagerLimit);
  auto recv = makeRecv(buffer, 1, 6);
  bool mustShare = false;
  EXPECT_FALSE(box.receiveNow(*recv, mustShare));
  EXPECT_TRUE(mustShare);
  EXPECT_TRUE(asked.empty());
  // Left on the unexpected list, it is seen there, and taken once shared.
  ASSERT_TRUE(box.probe(kContext, 1, 6));
  EXPECT_EQ(box.probe(kContext, 1, 6)->bytes, 4096);
  box.post(recv);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], proxy.get());
  EXPECT_FALSE(isCompleteNow(*recv));
  // The eager message behind it goes to the next receive.
  auto next = makeRecv(later, 1, 6);
  ASSERT_TRUE(box.receiveNow(*next, mustShare));
  EXPECT_FALSE(mustShare);
  EXPECT_EQ(later[0], 6);
  // Its landing completes it, from any thread.
  std::thread([&] {
    std::copy(remote.begin(), remote.end(), buffer.begin());
    Mailbox::completeLanded(Envelope{kContext, 1, 6, 4096}, nullptr, *recv);
  }).join();
  ASSERT_TRUE(isCompleteNow(*recv));
  EXPECT_EQ(recv->statusBytes, 4096);
  EXPECT_EQ(recv->statusTag, 6);
  EXPECT_EQ(buffer[1023], 3);
}

TEST(MailboxTest, DrainsWhileTheSenderSends) {
  Mailbox box(2, [](Request& send) { markComplete(send); });
  constexpr int kCount = 50000;
  std::thread sender([&] {
    std::vector<std::vector<int32_t>> data(kCount);
    std::vector<std::shared_ptr<Request>> pending;
    for (int i = 0; i < kCount; ++i) {
      data[i] = payload(i);
      auto send = makeSend(data[i], i % 2, false);
      if (!box.send(1, send, kEagerLimit)) pending.push_back(send);
    }
    // Rendezvous data must stay put until the receiver has copied it.
    for (auto& send : pending)
      while (!isCompleteNow(*send)) std::this_thread::yield();
  });
  std::vector<int32_t> buffer(64);
  int next[2] = {0, 1};
  for (int received = 0; received < kCount; ++received) {
    int tag = received % 2;
    auto recv = makeRecv(buffer, 1, tag);
    box.post(recv);
    while (!isCompleteNow(*recv)) box.drain();
    ASSERT_EQ(buffer[0], next[tag]);
    ASSERT_EQ(recv->statusBytes, int64_t(payload(next[tag]).size() * 4));
    next[tag] += 2;
  }
  sender.join();
}

// Nonblocking sends may leave their messages unpublished; when the ring
// fills, the spilled ones must still come after those, which the first
// spill publishes.
TEST(MailboxTest, DeferredSendsKeepOrderPastAFullRing) {
  Mailbox box(2, [](Request& send) { markComplete(send); });
  const Layout& bytes = predefinedLayout(synergy::mpi::abi::kTypeByte);
  constexpr int kCount = 300;
  int published = 0;
  for (int i = 0; i < kCount; ++i) {
    int32_t value = i;
    Envelope envelope{kContext, 1, i % 2, 4};
    if (box.sendCopy(1, envelope, reinterpret_cast<const uint8_t*>(&value), *bytes, 4,
                     /*mayDefer=*/true))
      ++published;
  }
  // A burst publishes in growing batches and the spills publish too, but
  // not after every message.
  EXPECT_GT(published, 0);
  EXPECT_LT(published, kCount);
  std::vector<int32_t> buffer(1);
  for (int i = 0; i < kCount; ++i) {
    auto recv = makeRecv(buffer, 1, synergy::mpi::abi::kAnyTag);
    box.post(recv);
    ASSERT_TRUE(isCompleteNow(*recv)) << i;
    ASSERT_EQ(buffer[0], i);
    EXPECT_EQ(recv->statusTag, i % 2);
  }
  EXPECT_FALSE(box.publishFrom(1));
}

// A rank that ends with deferred messages publishes them: their receiver
// would otherwise wait forever.
TEST(MailboxTest, EndingRankPublishesItsDeferredSends) {
  World world(2, /*ranksOwnCpus=*/false);
  world.rankStarted(0);
  world.rankStarted(1);
  const Layout& bytes = predefinedLayout(synergy::mpi::abi::kTypeByte);
  int32_t values[2] = {10, 11};
  for (int i = 0; i < 2; ++i) {
    Envelope envelope{world.worldComm()->context, 1, i, 4};
    ASSERT_TRUE(world.sendEager(1, envelope, reinterpret_cast<const uint8_t*>(&values[i]),
                                *bytes, 4, 0, /*mayDefer=*/true));
  }
  uint32_t context = world.worldComm()->context;
  // The first message of a burst goes at once, the second waits.
  EXPECT_TRUE(world.probe(0, context, 1, 0));
  EXPECT_FALSE(world.probe(0, context, 1, 1));
  world.rankFinished(1);
  auto second = world.probe(0, context, 1, 1);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->bytes, 4);
}

}  // namespace

// A matched probe takes the earliest arrived message that fits out of
// matching: a receive posted afterwards takes the next one, and the taken
// one is delivered later, rendezvous sends completing only then.
TEST(MailboxTest, MatchedProbeTakesTheMessageOutOfMatching) {
  int matchedSends = 0;
  Mailbox box(2, [&](Request& send) {
    ++matchedSends;
    markComplete(send);
  });
  auto small = payload(0);
  auto large = payload(39);  // rendezvous: past kEagerLimit
  auto later = payload(1);
  auto first = makeSend(large, 4, false);
  auto second = makeSend(small, 4, false);
  auto third = makeSend(later, 4, false);
  EXPECT_FALSE(box.send(1, first, kEagerLimit));
  EXPECT_TRUE(box.send(1, second, kEagerLimit));
  EXPECT_TRUE(box.send(1, third, kEagerLimit));
  auto taken = box.takeMatching(kContext, synergy::mpi::abi::kAnySource, 4);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->envelope.bytes, int64_t(large.size() * 4));
  EXPECT_EQ(matchedSends, 0);
  std::vector<int32_t> buffer(64, -1);
  auto recv = makeRecv(buffer, 1, 4);
  box.post(recv);
  ASSERT_TRUE(isCompleteNow(*recv));
  EXPECT_EQ(buffer[0], 0);  // the second message, not the probed one
  auto probed = box.probe(kContext, 1, 4);
  ASSERT_TRUE(probed);
  EXPECT_EQ(probed->bytes, int64_t(later.size() * 4));
  std::vector<int32_t> target(64, -1);
  auto matched = makeRecv(target, 1, 4);
  box.receiveMatched(*taken, matched);
  EXPECT_TRUE(isCompleteNow(*matched));
  EXPECT_EQ(target[0], 39);
  EXPECT_EQ(matchedSends, 1);
  EXPECT_TRUE(isCompleteNow(*first));
}

// A rendezvous send its sender cancels before anything matches it is
// dropped, whether it waits among the unexpected messages or in its ring,
// and the receive takes the next message; one a receive claimed first
// cannot be cancelled.
TEST(MailboxTest, CancelledRendezvousSendIsNeverReceived) {
  Mailbox box(2, [](Request& send) { markComplete(send); });
  auto large = payload(39);
  auto small = payload(2);
  auto unexpected = makeSend(large, 6, true);
  EXPECT_FALSE(box.send(1, unexpected, kEagerLimit));
  box.drain();  // now on the unexpected list
  auto inRing = makeSend(large, 6, false);
  EXPECT_FALSE(box.send(1, inRing, kEagerLimit));
  EXPECT_TRUE(claimSend(*unexpected, kSendCancelled));
  EXPECT_TRUE(claimSend(*inRing, kSendCancelled));
  EXPECT_FALSE(box.probe(kContext, 1, 6));
  auto next = makeSend(small, 6, false);
  EXPECT_TRUE(box.send(1, next, kEagerLimit));
  std::vector<int32_t> buffer(64, -1);
  auto recv = makeRecv(buffer, 1, 6);
  box.post(recv);
  ASSERT_TRUE(isCompleteNow(*recv));
  EXPECT_EQ(buffer[0], 2);
  EXPECT_EQ(buffer[1], 2);
  EXPECT_FALSE(isCompleteNow(*unexpected));
  EXPECT_FALSE(box.probe(kContext, 1, 6));

  auto matched = makeSend(large, 7, false);
  std::vector<int32_t> target(64, -1);
  auto posted = makeRecv(target, 1, 7);
  box.post(posted);
  EXPECT_FALSE(box.send(1, matched, kEagerLimit));
  box.drain();
  EXPECT_TRUE(isCompleteNow(*posted));
  EXPECT_FALSE(claimSend(*matched, kSendCancelled));
}

// A posted receive can be withdrawn until it matches; then the message
// goes to the next receive that fits.
TEST(MailboxTest, WithdrawnReceiveTakesNoMessage) {
  Mailbox box(2, [](Request& send) { markComplete(send); });
  std::vector<int32_t> withdrawn(64, -1), next(64, -1);
  auto first = makeRecv(withdrawn, 1, 8);
  box.post(first);
  EXPECT_TRUE(box.withdraw(*first));
  EXPECT_FALSE(box.withdraw(*first));
  auto data = payload(5);
  auto send = makeSend(data, 8, false);
  EXPECT_TRUE(box.send(1, send, kEagerLimit));
  auto second = makeRecv(next, 1, 8);
  box.post(second);
  EXPECT_TRUE(isCompleteNow(*second));
  EXPECT_FALSE(isCompleteNow(*first));
  EXPECT_EQ(withdrawn[0], -1);
  EXPECT_EQ(next[0], 5);
}

// A receive that may borrow (Request::mayBorrow) keeps a rendezvous send of
// exactly its size instead of copying it, whether the receive or the send
// came first; the send stays pending until the borrower gives it back. A
// message of another size, or a receive that may not borrow, is copied.
TEST(MailboxTest, BorrowingReceiveKeepsASendOfItsSizeInsteadOfCopyingIt) {
  int matchedSends = 0;
  Mailbox box(2, [&](Request& send) {
    ++matchedSends;
    markComplete(send);
  });
  auto large = payload(39);  // 40 ints, past the eager limit
  std::vector<int32_t> buffer(large.size(), -1);

  auto postedFirst = makeRecv(buffer, 1, 1);
  postedFirst->mayBorrow = true;
  box.post(postedFirst);
  auto lender = makeSend(large, 1, false);
  EXPECT_FALSE(box.send(1, lender, kEagerLimit));
  box.drain();
  ASSERT_TRUE(isCompleteNow(*postedFirst));
  EXPECT_EQ(postedFirst->lender, lender);
  EXPECT_EQ(lentData(*postedFirst), reinterpret_cast<const uint8_t*>(large.data()));
  EXPECT_EQ(postedFirst->statusBytes, int64_t(large.size() * 4));
  EXPECT_EQ(buffer[0], -1);
  EXPECT_EQ(matchedSends, 0);
  EXPECT_FALSE(isCompleteNow(*lender));

  auto sentFirst = makeSend(large, 2, false);
  EXPECT_FALSE(box.send(1, sentFirst, kEagerLimit));
  box.drain();
  auto late = makeRecv(buffer, 1, 2);
  late->mayBorrow = true;
  box.post(late);
  ASSERT_TRUE(isCompleteNow(*late));
  EXPECT_EQ(late->lender, sentFirst);
  EXPECT_EQ(buffer[0], -1);
  EXPECT_EQ(matchedSends, 0);

  std::vector<int32_t> larger(large.size() + 1, -1);
  auto otherSize = makeRecv(larger, 1, 3);
  otherSize->mayBorrow = true;
  box.post(otherSize);
  auto copied = makeSend(large, 3, false);
  EXPECT_FALSE(box.send(1, copied, kEagerLimit));
  box.drain();
  ASSERT_TRUE(isCompleteNow(*otherSize));
  EXPECT_FALSE(otherSize->lender);
  EXPECT_EQ(larger[0], 39);
  EXPECT_EQ(larger[39], 39);
  EXPECT_EQ(larger[40], -1);
  EXPECT_EQ(matchedSends, 1);

  auto notBorrowing = makeRecv(buffer, 1, 4);
  box.post(notBorrowing);
  auto alsoCopied = makeSend(large, 4, false);
  EXPECT_FALSE(box.send(1, alsoCopied, kEagerLimit));
  box.drain();
  ASSERT_TRUE(isCompleteNow(*notBorrowing));
  EXPECT_FALSE(notBorrowing->lender);
  EXPECT_EQ(buffer[0], 39);
  EXPECT_EQ(matchedSends, 2);
}

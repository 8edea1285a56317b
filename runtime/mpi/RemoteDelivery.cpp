//===- RemoteDelivery.cpp - messages to and from ranks on other hosts -----===//
//
// This file implements the World's side of RemoteRanks.h for messages
// below the rendezvous threshold, which travel eagerly (the others:
// RemoteRendezvous.cpp). A small message
// for a remote rank is packed once, straight into the frame the link
// queues; a large one is not copied at all when its data lies in a few
// places (lentPieces()): the link writes it from the sender's buffer, and
// the send completes when it has. A message
// from a remote rank is injected into the receiver's Mailbox through the
// ring of its remote sender, exactly as that sender would have written it
// on this host. The link's receiving thread is the only writer of those
// rings and receives each connection's frames in order, so the
// non-overtaking order and the Mailbox's single-producer rule both hold.
//
// A message larger than a ring slot's inline bytes goes in as a rendezvous
// message whose "send request" is a proxy holding the received frame: the
// receive copies straight out of it, the one copy between the socket and
// the guest. A remote synchronous send also travels with a match id; when
// its proxy matches, the Mailbox completes it through World::sendMatched(),
// which sends the acknowledgement back, and the sending host completes the
// waiting request it kept under that id.
//
// Such a proxy holds its data on this host until a receive takes it, so
// its sender first takes eager credit from the link (RemoteRanks.h): a
// message the credit does not cover goes by rendezvous whatever its size.
// When the proxy matches, World::sendMatched() gives its bytes back.
//
//===----------------------------------------------------------------------===//
#include <cstring>
#include <string>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "mpi/MpiAbi.h"
#include "mpi/Window.h"
#include "mpi/World.h"

namespace synergy::mpi {

namespace {

const Layout& byteLayout() {
  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  return bytes;
}

// Standard sends of at least this many bytes lend their buffer to the
// link instead of being copied: below it the copy costs less than waiting
// for the write.
constexpr int64_t kSendInPlaceBytes = 64 << 10;
// The most places a lent send's data may lie in (lentPieces()); a type of
// more, smaller pieces is packed into the frame, which costs less than
// gathering them (every piece is an entry of the socket's write).
constexpr size_t kMostLentPieces = 32;

// The places `count` instances of `type` at `buffer` lay their data in, in
// order, adjacent ones merged: false, with `pieces` incomplete, when there
// are more than kMostLentPieces (a collective's bundle of blocks from
// several members' buffers has one a block).
bool lentPieces(const uint8_t* buffer, const TypeLayout& type, int64_t count,
                std::vector<LentData>& pieces) {
  if (type.isContiguous()) {
    pieces.push_back({buffer + type.lb, count * type.size});
    return true;
  }
  for (int64_t instance = 0; instance < count; ++instance)
    for (const TypeSegment& segment : type.segments) {
      if (segment.length == 0) continue;
      const uint8_t* data = buffer + instance * type.extent() + segment.offset;
      if (!pieces.empty() && pieces.back().data + pieces.back().bytes == data) {
        pieces.back().bytes += segment.length;
        continue;
      }
      if (pieces.size() == kMostLentPieces) return false;
      pieces.push_back({data, segment.length});
    }
  return true;
}

// The receiving side of a large remote message: the frame that holds its
// data, and, for a synchronous send, the id under which its sender waits
// (0 otherwise).
struct RemoteSendProxy : Request {
  std::unique_ptr<uint8_t[]> frame;
  uint64_t matchId = 0;
  int64_t creditBytes = 0;  // what it charged (eagerCreditCharge)
};

// A message too large for the link ends the job rather than going
// astray; false then.
bool fitsAcrossHosts(World& world, RemoteRanks& link, int from, int to, int64_t bytes) {
  if (bytes <= link.maxMessageBytes()) return true;
  world.abort(abi::kErrOther, "rank " + std::to_string(from) + ": a message of " +
                                  std::to_string(bytes) + " bytes to rank " + std::to_string(to) +
                                  " on another host is larger than the " +
                                  std::to_string(link.maxMessageBytes()) +
                                  " bytes a cross-host message may carry");
  return false;
}

}  // namespace

struct World::AwaitingMatch {
  std::mutex mutex;
  uint64_t lastId = 0;
  std::unordered_map<uint64_t, std::shared_ptr<Request>> sends;
};

void World::attachRemoteRanks(RemoteRanks& link, std::vector<bool> remote) {
  remote.resize(size_t(size_), false);
  {
    std::lock_guard<std::mutex> guard(remoteTablesMutex_);
    remoteTables_.push_back(std::make_unique<const std::vector<bool>>(std::move(remote)));
    remoteTable_.store(remoteTables_.back().get(), std::memory_order_release);
  }
  const std::vector<bool>& remoteRank = *remoteTable_.load();
  awaitingMatch_ = std::make_shared<AwaitingMatch>();
  rendezvous_ = makeRendezvousTables(size_);
  rendezvousThreshold_ = rendezvousThresholdBytes();
  remote_ = &link;
  int local = 0;
  while (local < size_ && remoteRank[size_t(local)]) ++local;
  std::lock_guard<std::mutex> guard(contextMutex_);
  contextBase_ = uint32_t(link.hostOf(local) + 1) << kContextRangeShift;
  contextLimit_ = 1u << kContextRangeShift;
  // No rank runs yet, so the World has drawn only MPI_COMM_WORLD's and the
  // MPI_COMM_SELFs' contexts; a resumed job's ends now count in this range.
  nextContext_ = uint32_t(size_) + 1;
  for (uint32_t end : resumedContextEnds_) applyResumedContextEnd(end);
}

bool World::switchRemoteRanks(std::vector<bool> remote) {
  if (remote.size() != size_t(size_)) return false;
  std::lock_guard<std::mutex> guard(remoteTablesMutex_);
  if (remoteTables_.empty()) return false;  // no link attached
  const std::vector<bool>& before = *remoteTables_.back();
  remoteTables_.push_back(std::make_unique<const std::vector<bool>>(std::move(remote)));
  remoteTable_.store(remoteTables_.back().get(), std::memory_order_release);
  remoteGeneration_.fetch_add(1, std::memory_order_acq_rel);
  // Windows follow the table: members now on other hosts are reached
  // through them (a live move's; its arrival links the moved member).
  windowsFollowRoutes(*this, before);
  return true;
}

bool World::spansHosts(const Communicator& comm) const {
  const std::vector<bool>* table = remoteTable_.load(std::memory_order_acquire);
  if (!remote_ || !table) return false;
  for (int member : comm.worldRanks)
    if ((*table)[size_t(member)]) return true;
  return false;
}

void World::sendRemoteCopy(int from, const Envelope& envelope, const uint8_t* data,
                           const TypeLayout& type, int64_t count, int destWorldRank,
                           bool mayDefer) {
  if (!fitsAcrossHosts(*this, *remote_, from, destWorldRank, envelope.bytes)) return;
  RemoteMessage message{from, destWorldRank, envelope, 0};
  auto pack = [&](uint8_t* out) {
    if (type.isContiguous())
      std::memcpy(out, data + type.lb, size_t(envelope.bytes));
    else
      packTyped(data, type, count, out);
  };
  if (!mayDefer) return remote_->send(message, pack);
  remote_->sendBatched(message, pack);
  outboxes_[from].batchedRemote = true;
}

bool World::takeEagerCredit(int destWorldRank, int64_t bytes, bool synchronous) {
  int64_t charge = eagerCreditCharge(bytes, synchronous);
  return charge == 0 || remote_->takeEagerCredit(destWorldRank, charge);
}

void World::sendRemote(const std::shared_ptr<Request>& send, int destWorldRank, bool mayDefer) {
  if (send->bytes >= rendezvousThreshold_ ||
      !takeEagerCredit(destWorldRank, send->bytes, send->synchronous && !send->buffered)) {
    if (fitsAcrossHosts(*this, *remote_, send->owner, destWorldRank, send->bytes))
      sendRendezvous(send, destWorldRank);
    return;
  }
  Envelope envelope{send->context, send->senderRank, send->tag, send->bytes};
  std::vector<LentData> pieces;
  if (!send->synchronous && !send->buffered && send->bytes >= kSendInPlaceBytes &&
      lentPieces(send->buffer, *send->type, send->count, pieces)) {
    if (!fitsAcrossHosts(*this, *remote_, send->owner, destWorldRank, envelope.bytes)) return;
    RemoteMessage message{send->owner, destWorldRank, envelope, 0};
    // The request stays pending, and so its buffer untouched by an MPI
    // program, until the link is done with it.
    remote_->sendInPlace(message, pieces, [this, send] {
      markComplete(*send);
      notify(send->owner);
    });
    return;
  }
  if (!send->synchronous || send->buffered) {
    sendRemoteCopy(send->owner, envelope, send->buffer, *send->type, send->count, destWorldRank,
                   mayDefer);
    markComplete(*send);
    return;
  }
  if (!fitsAcrossHosts(*this, *remote_, send->owner, destWorldRank, envelope.bytes)) return;
  RemoteMessage message{send->owner, destWorldRank, envelope, 0};
  {
    std::lock_guard<std::mutex> guard(awaitingMatch_->mutex);
    message.matchId = ++awaitingMatch_->lastId;
    awaitingMatch_->sends.emplace(message.matchId, send);
  }
  remote_->send(message, [&](uint8_t* out) {
    packTyped(send->buffer, *send->type, send->count, out);
  });
}

void World::deliverRemote(const RemoteMessage& message, std::unique_ptr<uint8_t[]> frame,
                          size_t dataOffset) {
  Mailbox& box = *mailboxes_[message.to];
  int64_t charge = eagerCreditCharge(message.envelope.bytes, message.matchId != 0);
  // A synchronous message charges nothing when empty, but its match must
  // still be acknowledged: only a proxy does that.
  if (charge == 0 && message.matchId == 0) {
    box.sendCopy(message.from, message.envelope, frame.get() + dataOffset, *byteLayout(),
                 message.envelope.bytes, /*mayDefer=*/false);
  } else {
    auto proxy = std::make_shared<RemoteSendProxy>();
    proxy->frame = std::move(frame);
    proxy->matchId = message.matchId;
    proxy->creditBytes = charge;
    proxy->kind = Request::Kind::Send;
    proxy->owner = message.from;
    proxy->buffer = proxy->frame.get() + dataOffset;
    setType(*proxy, byteLayout());
    proxy->count = message.envelope.bytes;
    proxy->bytes = message.envelope.bytes;
    proxy->context = message.envelope.context;
    proxy->senderRank = message.envelope.source;
    proxy->tag = message.envelope.tag;
    proxy->synchronous = message.matchId != 0;
    box.send(message.from, proxy, /*eagerLimit=*/0);
  }
  notify(message.to);
}

void World::acknowledgeRemoteMatch(Request& proxy) {
  auto& remoteSend = static_cast<RemoteSendProxy&>(proxy);
  if (remoteSend.matchId != 0)
    remote_->acknowledgeMatch(remoteSend.owner, remoteSend.matchId, remoteSend.creditBytes);
  else if (remoteSend.creditBytes != 0)
    remote_->returnEagerCredit(remoteSend.owner, remoteSend.creditBytes);
}

bool World::remoteSendMatched(uint64_t matchId) {
  std::shared_ptr<Request> send;
  {
    std::lock_guard<std::mutex> guard(awaitingMatch_->mutex);
    auto it = awaitingMatch_->sends.find(matchId);
    if (it == awaitingMatch_->sends.end()) return false;
    send = std::move(it->second);
    awaitingMatch_->sends.erase(it);
  }
  markComplete(*send);
  notify(send->owner);
  return true;
}

}  // namespace synergy::mpi

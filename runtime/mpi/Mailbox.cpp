//===- Mailbox.cpp - one rank's incoming messages and posted receives -----===//
#include "mpi/Mailbox.h"

#include <algorithm>
#include <cstring>

#include "mpi/MpiAbi.h"
#include "mpi/World.h"

namespace synergy::mpi {

namespace {

// Deferred messages a ring holds before the next one publishes them all:
// enough that a burst of nonblocking sends pays for few publications, few
// enough that the receiver starts on a burst soon after it starts.
constexpr uint64_t kMaxUnpublished = 16;

bool envelopeMatches(uint32_t context, int source, int tag, const Envelope& envelope) {
  return context == envelope.context && (source == abi::kAnySource || source == envelope.source) &&
         (tag == abi::kAnyTag || tag == envelope.tag);
}

bool envelopeMatches(const Request& recv, const Envelope& envelope) {
  return envelopeMatches(recv.context, recv.peer, recv.tag, envelope);
}

const TypeLayout& byteLayout() {
  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  return *bytes;
}

// Completes a receive whose data is in its buffer.
void completeReceive(const Envelope& envelope, Request& recv) {
  int64_t bytes = std::min(envelope.bytes, recv.bytes);
  recv.statusSource = envelope.source;
  recv.statusTag = envelope.tag;
  recv.statusBytes = bytes;
  recv.statusError = envelope.bytes > recv.bytes ? abi::kErrTruncate : abi::kSuccess;
  markComplete(recv);
}

// Copies a message's data into a posted receive and completes it.
void deliver(const uint8_t* src, const TypeLayout& srcType, int64_t srcCount,
             const Envelope& envelope, Request& recv) {
  copyTyped(src, srcType, srcCount, recv.buffer, *recv.type, recv.count,
            std::min(envelope.bytes, recv.bytes));
  completeReceive(envelope, recv);
}

}  // namespace

void Mailbox::completeLanded(const Envelope& envelope, const uint8_t* temporary, Request& recv) {
  if (temporary)
    deliver(temporary, byteLayout(), envelope.bytes, envelope, recv);
  else
    completeReceive(envelope, recv);
}

Mailbox::Mailbox(int worldSize, std::function<void(Request&)> sendMatched,
                 RemoteFetchStart startRemoteFetch)
    : rings_(new std::atomic<MessageRing*>[worldSize]),
      worldSize_(worldSize),
      sendMatched_(std::move(sendMatched)),
      startRemoteFetch_(std::move(startRemoteFetch)) {
  for (int i = 0; i < worldSize; ++i) rings_[i].store(nullptr);
}

Mailbox::~Mailbox() {
  for (int i = 0; i < worldSize_; ++i) delete rings_[i].load();
}

MessageRing* Mailbox::makeRing(int from) {
  // Only `from` makes its own ring, so there is no race to make it.
  auto* ring = new MessageRing;
  rings_[from].store(ring, std::memory_order_release);
  return ring;
}

bool Mailbox::sendCopy(int from, const Envelope& envelope, const uint8_t* data,
                       const TypeLayout& type, int64_t count, bool mayDefer) {
  MessageRing* channel = ring(from);
  if (MessageRing::Slot* slot = channel->reserve(envelope.bytes)) {
    slot->envelope = envelope;
    // Mostly contiguous data, copied here rather than through packTyped's
    // call, whose stores of saved registers would queue behind the slot's.
    if (type.isContiguous())
      std::memcpy(slot->reserveData(envelope.bytes), data + type.lb, size_t(envelope.bytes));
    else
      packTyped(data, type, count, slot->reserveData(envelope.bytes));
    channel->commit();
    if (mayDefer) return channel->publishBatch(kMaxUnpublished);
    channel->publish();
    return true;
  }
  Arrival arrival{envelope, nullptr, nullptr};
  arrival.data.reset(new uint8_t[size_t(envelope.bytes)]);
  packTyped(data, type, count, arrival.data.get());
  channel->spill(std::move(arrival));
  return true;
}

bool Mailbox::send(int from, const std::shared_ptr<Request>& send, int64_t eagerLimit) {
  Envelope envelope{send->context, send->senderRank, send->tag, send->bytes};
  if (send->buffered || (!send->synchronous && send->bytes <= eagerLimit)) {
    sendCopy(from, envelope, send->buffer, *send->type, send->count, /*mayDefer=*/false);
    return true;
  }
  MessageRing* channel = ring(from);
  if (MessageRing::Slot* slot = channel->reserve(0)) {
    slot->envelope = envelope;
    slot->rendezvous = send;
    channel->commit();
    channel->publish();
  } else {
    channel->spill(Arrival{envelope, nullptr, send});
  }
  return false;
}

bool Mailbox::publishFrom(int from) {
  MessageRing* channel = rings_[from].load(std::memory_order_relaxed);
  return channel && channel->publish();
}

bool Mailbox::drain() { return drainRings(nullptr); }

bool Mailbox::drainRings(NewestReceive* newest) {
  bool arrived = false;
  for (int from = 0; from < worldSize_; ++from) {
    MessageRing* ring = rings_[from].load(std::memory_order_acquire);
    if (!ring) continue;
    while (MessageRing::Slot* slot = ring->front()) {
      arrive(*slot, newest);
      ring->pop();
      arrived = true;
      if (newest && (newest->matched || newest->mustShare)) return true;
    }
    if (ring->spilling()) {
      ring->takeSpilled(spilled_);
      // Every spilled message is delivered or kept, even those behind
      // `newest`'s: the ring's sender may spill again at once.
      for (Arrival& arrival : spilled_) arrive(std::move(arrival), newest);
      spilled_.clear();
      arrived = true;
      if (newest && (newest->matched || newest->mustShare)) return true;
    }
  }
  return arrived;
}

Request* Mailbox::takePosted(const Envelope& envelope, Request* rendezvous,
                             NewestReceive* newest, std::shared_ptr<Request>& hold,
                             bool& cancelled) {
  cancelled = false;
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (!envelopeMatches(**it, envelope)) continue;
    // A rendezvous send its sender cancelled first leaves the receive posted.
    if (rendezvous && !claimSend(*rendezvous, kSendMatched)) {
      cancelled = true;
      return nullptr;
    }
    hold = std::move(*it);
    // Mostly the oldest receive matches; the general erase costs several
    // times what taking the front does.
    if (it == posted_.begin())
      posted_.pop_front();
    else
      posted_.erase(it);
    return hold.get();
  }
  if (newest && !newest->matched && !newest->mustShare &&
      envelopeMatches(*newest->recv, envelope)) {
    // Unclaimed, so that the shared receive claims it from the unexpected
    // list.
    if (rendezvous && rendezvous->awaitsRemoteData && !newest->shared) {
      newest->mustShare = true;
      return nullptr;
    }
    if (!rendezvous || claimSend(*rendezvous, kSendMatched)) {
      newest->matched = true;
      return newest->recv;
    }
    cancelled = true;
  }
  return nullptr;
}

void Mailbox::deliverRendezvous(const Envelope& envelope, const std::shared_ptr<Request>& lender,
                                Request& recv, const std::shared_ptr<Request>* shared) {
  Request& send = *lender;
  if (send.awaitsRemoteData) {
    // Only a shared receive matches it (takePosted, takeUnexpected), so
    // `shared` is never null here.
    if (shared && startRemoteFetch_) startRemoteFetch_(send, *shared);
    return;
  }
  // Only a message of exactly the size expected: the borrower reads all
  // of it, and a shorter one from a hostile host must not be read past.
  if (recv.mayBorrow && send.type->isContiguous() && envelope.bytes == recv.bytes) {
    recv.lender = lender;
    completeReceive(envelope, recv);
    return;
  }
  deliver(send.buffer, *send.type, send.count, envelope, recv);
  sendMatched_(send);
}

void Mailbox::deliverArrival(const Arrival& arrival, Request& recv,
                             const std::shared_ptr<Request>* shared) {
  if (arrival.rendezvous)
    deliverRendezvous(arrival.envelope, arrival.rendezvous, recv, shared);
  else
    deliver(arrival.data.get(), byteLayout(), arrival.envelope.bytes, arrival.envelope, recv);
}

void Mailbox::arrive(MessageRing::Slot& slot, NewestReceive* newest) {
  std::shared_ptr<Request> hold;
  bool cancelled;
  Request* recv = takePosted(slot.envelope, slot.rendezvous.get(), newest, hold, cancelled);
  if (!recv) {
    if (!cancelled) unexpected_.push_back(slot.take());
    return;
  }
  if (slot.rendezvous) {
    std::shared_ptr<Request> send = std::move(slot.rendezvous);
    deliverRendezvous(slot.envelope, send, *recv, hold ? &hold : newest->shared);
  } else {
    deliver(slot.data(), byteLayout(), slot.envelope.bytes, slot.envelope, *recv);
  }
}

void Mailbox::arrive(Arrival arrival, NewestReceive* newest) {
  std::shared_ptr<Request> hold;
  bool cancelled;
  Request* recv = takePosted(arrival.envelope, arrival.rendezvous.get(), newest, hold, cancelled);
  if (!recv) {
    if (!cancelled) unexpected_.push_back(std::move(arrival));
    return;
  }
  deliverArrival(arrival, *recv, hold ? &hold : newest->shared);
}

void Mailbox::post(const std::shared_ptr<Request>& recv) {
  bool mustShare;
  if (!receiveNow(*recv, &recv, mustShare)) postUnmatched(recv);
}

bool Mailbox::receiveNow(Request& recv, bool& mustShare) {
  return receiveNow(recv, nullptr, mustShare);
}

bool Mailbox::receiveNow(Request& recv, const std::shared_ptr<Request>* shared, bool& mustShare) {
  bool keptRemote = false;
  if (std::optional<Arrival> arrival =
          takeUnexpected(recv.context, recv.peer, recv.tag, /*keepRemote=*/!shared, &keptRemote)) {
    deliverArrival(*arrival, recv, shared);
    mustShare = false;
    return true;
  }
  if (keptRemote) {
    mustShare = true;
    return false;
  }
  // Messages still in the rings were sent after every unexpected one, so
  // the receive takes the first of them that no earlier posted receive
  // takes, straight from its slot into the receive buffer rather than
  // through a copy on the unexpected list; only if none has come yet does
  // it wait among the posted ones.
  NewestReceive newest{&recv, shared};
  drainRings(&newest);
  mustShare = newest.mustShare;
  return newest.matched;
}

std::optional<Arrival> Mailbox::takeUnexpected(uint32_t context, int source, int tag,
                                               bool keepRemote, bool* keptRemote) {
  for (auto it = unexpected_.begin(); it != unexpected_.end();) {
    if (!envelopeMatches(context, source, tag, it->envelope)) {
      ++it;
      continue;
    }
    if (keepRemote && it->rendezvous && it->rendezvous->awaitsRemoteData) {
      *keptRemote = true;
      return std::nullopt;
    }
    // A rendezvous send cancelled before anything matched it is dropped.
    if (it->rendezvous && !claimSend(*it->rendezvous, kSendMatched)) {
      it = unexpected_.erase(it);
      continue;
    }
    Arrival arrival = std::move(*it);
    unexpected_.erase(it);
    return arrival;
  }
  return std::nullopt;
}

std::optional<Arrival> Mailbox::takeMatching(uint32_t context, int source, int tag) {
  drain();
  return takeUnexpected(context, source, tag);
}

void Mailbox::receiveMatched(const Arrival& arrival, const std::shared_ptr<Request>& recv) {
  deliverArrival(arrival, *recv, &recv);
}

bool Mailbox::withdraw(const Request& recv) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (it->get() != &recv) continue;
    posted_.erase(it);
    return true;
  }
  return false;
}

ptrdiff_t Mailbox::postedPosition(const Request& recv) const {
  for (size_t i = 0; i < posted_.size(); ++i)
    if (posted_[i].get() == &recv) return ptrdiff_t(i);
  return -1;
}

std::optional<ProbeResult> Mailbox::probe(uint32_t context, int source, int tag) const {
  for (const Arrival& arrival : unexpected_)
    if (envelopeMatches(context, source, tag, arrival.envelope) &&
        !(arrival.rendezvous && isCancelledSend(*arrival.rendezvous)))
      return ProbeResult{arrival.envelope.source, arrival.envelope.tag, arrival.envelope.bytes};
  return std::nullopt;
}

}  // namespace synergy::mpi

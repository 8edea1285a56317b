//===- MessageRing.h - one sender's lock-free channel to one receiver -----===//
//
// Point-to-point messages travel from a sender rank to a receiver rank
// through a single-producer, single-consumer ring of bytes, the way
// shared-memory MPI transports pass small messages: the sender writes a
// record (envelope, then the data or a pointer to the send) at the ring's
// tail and publishes it by storing its header word, which the receiver
// polls at the head. No lock and no allocation.
//
// Records are packed one after another, so short messages share cache
// lines: a 1-byte message takes 32 bytes, two to a line, and a stream of
// them costs the receiver (and the sender, taking the lines back) half a
// line transfer each rather than a whole one; reading in address order
// also lets the hardware prefetcher fetch ahead. Eager data of any size up
// to a quarter of the ring sits inline. A rendezvous record carries the
// send request itself: the receiver copies straight out of the sender's
// memory once the message matches.
//
// Old bytes in the ring may look like a header, so the sender clears the
// header word after each record before it publishes that record; the
// receiver thus finds either zero or a complete record at the head. A
// record that does not fit before the end of the ring starts at the
// beginning, after a wrap mark.
//
// A full ring must not block the sender (MPI_Isend never blocks, and the
// receiver may be busy elsewhere), so its messages spill into a locked
// overflow list. Once anything has spilled, later messages spill too until
// the receiver has taken the list, which keeps them in send order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace synergy::mpi {

struct Request;

struct Envelope {
  uint32_t context = 0;
  int source = 0;  // the sender's rank in the communicator
  int tag = 0;
  int64_t bytes = 0;
};

// A message the receiver holds: either packed data or a rendezvous send.
struct Arrival {
  Envelope envelope;
  std::unique_ptr<uint8_t[]> data;
  std::shared_ptr<Request> rendezvous;
};

class MessageRing {
 public:
  static constexpr uint64_t kBytes = 128 << 10;
  // Eager messages longer than this always spill.
  static constexpr int64_t kMaxInlineBytes = kBytes / 4;

  // A published record, as the receiver sees it at the head.
  class Record {
   public:
    Envelope envelope() const { return {context_, source_, tag_, bytes_}; }
    bool isRendezvous() const { return state_.load(std::memory_order_relaxed) & kRendezvous; }
    const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this + 1); }
    // The send of a rendezvous record, moved out.
    std::shared_ptr<Request> takeRendezvous() {
      auto* held = reinterpret_cast<std::shared_ptr<Request>*>(this + 1);
      std::shared_ptr<Request> send = std::move(*held);
      held->~shared_ptr();
      return send;
    }
    // Moves the message out, for a receiver that cannot deliver it yet.
    Arrival take() {
      Arrival arrival{envelope(), nullptr, nullptr};
      if (isRendezvous()) {
        arrival.rendezvous = takeRendezvous();
      } else if (bytes_ > 0) {
        arrival.data.reset(new uint8_t[size_t(bytes_)]);
        std::copy(data(), data() + bytes_, arrival.data.get());
      }
      return arrival;
    }

   private:
    friend class MessageRing;
    // 0 until published; then the record's size in bytes, with flags.
    std::atomic<uint32_t> state_;
    uint32_t context_;
    int32_t source_;
    int32_t tag_;
    int64_t bytes_;
  };
  static_assert(sizeof(Record) == 24);

  MessageRing() : ring_(new (std::align_val_t(64)) uint8_t[kBytes]()) {}
  ~MessageRing() {
    while (Record* record = front()) {
      if (record->isRendezvous()) record->takeRendezvous();
      pop();
    }
    ::operator delete[](ring_, std::align_val_t(64));
  }
  MessageRing(const MessageRing&) = delete;
  MessageRing& operator=(const MessageRing&) = delete;

  // Producer side. Room for `dataBytes` of eager data, filled by the
  // sender before publish(); null when the ring is full or spilling.
  uint8_t* reserveEager(const Envelope& envelope) {
    if (envelope.bytes > kMaxInlineBytes) return nullptr;
    Record* record = reserve(envelope, uint64_t(envelope.bytes));
    return record ? reinterpret_cast<uint8_t*>(record + 1) : nullptr;
  }
  // Publishes the record reserveEager() made room for.
  void publish() { publish(0); }
  // Sends `send` as a rendezvous record; false when the ring is full or
  // spilling.
  bool sendRendezvous(const Envelope& envelope, const std::shared_ptr<Request>& send) {
    Record* record = reserve(envelope, sizeof(std::shared_ptr<Request>));
    if (!record) return false;
    new (record + 1) std::shared_ptr<Request>(send);
    publish(kRendezvous);
    return true;
  }
  // For a message that found no room.
  void spill(Arrival arrival) {
    std::lock_guard<std::mutex> guard(overflowMutex_);
    overflow_.push_back(std::move(arrival));
    spilling_.store(true, std::memory_order_release);
  }

  // Consumer side. The oldest published record, or null.
  Record* front() {
    uint64_t offset = head_.load(std::memory_order_relaxed) % kBytes;
    auto* record = reinterpret_cast<Record*>(ring_ + offset);
    uint32_t state = record->state_.load(std::memory_order_acquire);
    if (state == 0) return nullptr;
    if (state & kWrap) {
      headSkip_ = kBytes - offset;
      record = reinterpret_cast<Record*>(ring_);
      state = record->state_.load(std::memory_order_acquire);
    } else {
      headSkip_ = 0;
    }
    headSize_ = state & kSizeMask;
    return record;
  }
  // Frees the record front() returned.
  void pop() {
    head_.store(head_.load(std::memory_order_relaxed) + headSkip_ + headSize_,
                std::memory_order_release);
  }
  bool spilling() const { return spilling_.load(std::memory_order_acquire); }
  // Takes the ring's remaining messages and then the overflow list, in
  // send order, and lets the sender use the ring again.
  void takeSpilled(std::vector<Arrival>& out) {
    std::lock_guard<std::mutex> guard(overflowMutex_);
    // The sender does not publish while spilling_ is set, so whatever the
    // ring holds now was sent before the overflow list.
    while (Record* record = front()) {
      out.push_back(record->take());
      pop();
    }
    for (Arrival& arrival : overflow_) out.push_back(std::move(arrival));
    overflow_.clear();
    spilling_.store(false, std::memory_order_release);
  }

 private:
  static constexpr uint32_t kRendezvous = 1u << 31;
  static constexpr uint32_t kWrap = 1u << 30;
  static constexpr uint32_t kSizeMask = kWrap - 1;

  // Makes room for a record with `payload` bytes after its header and
  // fills in the envelope; the caller fills the payload and publishes.
  Record* reserve(const Envelope& envelope, uint64_t payload) {
    if (spilling_.load(std::memory_order_acquire)) return nullptr;
    uint64_t size = (sizeof(Record) + payload + 7) & ~uint64_t(7);
    uint64_t offset = tail_ % kBytes;
    // A record never runs past the end; the space before it is skipped.
    uint64_t skip = offset + size > kBytes ? kBytes - offset : 0;
    // Room for the record and for the cleared header after it.
    uint64_t needed = skip + size + sizeof(Record);
    if (tail_ + needed - cachedHead_ > kBytes) {
      cachedHead_ = head_.load(std::memory_order_acquire);
      if (tail_ + needed - cachedHead_ > kBytes) return nullptr;
    }
    pendingSkip_ = skip;
    pendingSize_ = size;
    auto* record = reinterpret_cast<Record*>(ring_ + (skip ? 0 : offset));
    record->context_ = envelope.context;
    record->source_ = envelope.source;
    record->tag_ = envelope.tag;
    record->bytes_ = envelope.bytes;
    return record;
  }
  void publish(uint32_t flags) {
    uint64_t offset = tail_ % kBytes;
    uint64_t start = pendingSkip_ ? 0 : offset;
    uint64_t next = (start + pendingSize_) % kBytes;
    reinterpret_cast<Record*>(ring_ + next)->state_.store(0, std::memory_order_relaxed);
    auto* record = reinterpret_cast<Record*>(ring_ + start);
    if (pendingSkip_) {
      // The receiver reads the record only after the wrap mark.
      record->state_.store(uint32_t(pendingSize_) | flags, std::memory_order_relaxed);
      reinterpret_cast<Record*>(ring_ + offset)->state_.store(kWrap, std::memory_order_release);
    } else {
      record->state_.store(uint32_t(pendingSize_) | flags, std::memory_order_release);
    }
    tail_ += pendingSkip_ + pendingSize_;
  }

  uint8_t* ring_;
  alignas(64) uint64_t tail_ = 0;  // bytes published; the producer's own
  uint64_t cachedHead_ = 0;        // the producer's last look at head_
  uint64_t pendingSkip_ = 0, pendingSize_ = 0;  // the record being filled
  alignas(64) std::atomic<uint64_t> head_{0};  // bytes consumed
  uint64_t headSkip_ = 0, headSize_ = 0;       // the record front() returned
  alignas(64) std::atomic<bool> spilling_{false};
  std::mutex overflowMutex_;
  std::deque<Arrival> overflow_;
};

}  // namespace synergy::mpi

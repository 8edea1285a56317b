//===- MessageRing.h - one sender's lock-free channel to one receiver -----===//
//
// Point-to-point messages travel from a sender rank to a receiver rank
// through a single-producer, single-consumer ring of fixed-size slots, the
// way shared-memory MPI transports pass small messages: the sender fills a
// slot and publishes it by storing its sequence number, which the receiver
// polls in the slot itself, so that a small message costs the receiver one
// cache line. No lock and no allocation.
//
// A slot carries a message's envelope and either its data (eager: payloads
// up to 1 KiB inline, longer ones in a buffer the slot keeps for reuse) or
// the send request itself (rendezvous: the receiver copies straight out of
// the sender's memory once the message matches). Inline data sits right
// after the envelope, at an address the receiver knows before the slot
// arrives, so its cache lines come over together with the envelope's
// rather than after it; that costs each ring of 128 slots about 150 KiB,
// made only for the pairs of ranks that communicate.
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
  static constexpr uint64_t kSlots = 128;
  static constexpr int64_t kInlineBytes = 1024;

  struct alignas(64) Slot {
    // The number of messages the ring had carried, counting this one, once
    // this one is published. With the envelope and the first 32 bytes of
    // data it fills the slot's first cache line.
    std::atomic<uint64_t> sequence{0};
    Envelope envelope;
    uint8_t inlineData[kInlineBytes];
    std::shared_ptr<Request> rendezvous;
    // Eager data longer than kInlineBytes; the receiver leaves it here for
    // the sender to reuse, or takes it for its unexpected-message list.
    std::unique_ptr<uint8_t[]> spill;
    int64_t spillCapacity = 0;

    const uint8_t* data() const { return envelope.bytes > kInlineBytes ? spill.get() : inlineData; }
    // Room for `bytes` of eager data, filled by the sender.
    uint8_t* reserveData(int64_t bytes) {
      if (bytes <= kInlineBytes) return inlineData;
      if (spillCapacity < bytes) {
        spill.reset(new uint8_t[size_t(bytes)]);
        spillCapacity = bytes;
      }
      return spill.get();
    }
    // Moves the message out, for a receiver that cannot deliver it yet.
    Arrival take() {
      Arrival arrival{envelope, nullptr, std::move(rendezvous)};
      if (arrival.rendezvous || envelope.bytes == 0) return arrival;
      if (envelope.bytes > kInlineBytes) {
        arrival.data = std::move(spill);
        spillCapacity = 0;
      } else {
        arrival.data.reset(new uint8_t[size_t(envelope.bytes)]);
        std::copy(inlineData, inlineData + envelope.bytes, arrival.data.get());
      }
      return arrival;
    }
  };

  // Producer side. A free slot, or null when the ring is full or messages
  // are spilling; the sender fills it and calls publish().
  Slot* reserve() {
    if (spilling_.load(std::memory_order_acquire)) return nullptr;
    if (tail_ - cachedHead_ == kSlots) {
      cachedHead_ = head_.load(std::memory_order_acquire);
      if (tail_ - cachedHead_ == kSlots) return nullptr;
    }
    return &slots_[tail_ % kSlots];
  }
  void publish() {
    ++tail_;
    slots_[(tail_ - 1) % kSlots].sequence.store(tail_, std::memory_order_release);
  }
  // For a message that found no free slot.
  void spill(Arrival arrival) {
    std::lock_guard<std::mutex> guard(overflowMutex_);
    overflow_.push_back(std::move(arrival));
    spilling_.store(true, std::memory_order_release);
  }

  // Consumer side. The oldest published slot, or null.
  Slot* front() {
    uint64_t head = head_.load(std::memory_order_relaxed);
    Slot* slot = &slots_[head % kSlots];
    return slot->sequence.load(std::memory_order_acquire) == head + 1 ? slot : nullptr;
  }
  void pop() { head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }
  bool spilling() const { return spilling_.load(std::memory_order_acquire); }
  // Takes the ring's remaining messages and then the overflow list, in
  // send order, and lets the sender use the ring again.
  void takeSpilled(std::vector<Arrival>& out) {
    std::lock_guard<std::mutex> guard(overflowMutex_);
    // The sender does not publish while spilling_ is set, so whatever the
    // ring holds now was sent before the overflow list.
    while (Slot* slot = front()) {
      out.push_back(slot->take());
      pop();
    }
    for (Arrival& arrival : overflow_) out.push_back(std::move(arrival));
    overflow_.clear();
    spilling_.store(false, std::memory_order_release);
  }

 private:
  Slot slots_[kSlots];
  alignas(64) uint64_t tail_ = 0;  // messages published; the producer's own
  uint64_t cachedHead_ = 0;          // the producer's last look at head_
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<bool> spilling_{false};
  std::mutex overflowMutex_;
  std::deque<Arrival> overflow_;
};

}  // namespace synergy::mpi

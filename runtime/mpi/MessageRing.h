//===- MessageRing.h - one sender's lock-free channel to one receiver -----===//
//
// Point-to-point messages travel from a sender rank to a receiver rank
// through a single-producer, single-consumer ring of fixed-size slots, the
// way shared-memory MPI transports pass small messages. No lock and no
// allocation.
//
// The sender fills a slot (commit) and makes it visible (publish) by
// storing its sequence number, which the receiver polls in the slot itself,
// so that a small message costs the receiver one cache line. The two steps
// are apart so that a burst of nonblocking sends can publish several
// messages at once: the receiver polls the line of the first unpublished
// slot, and when the sender stores to a line the receiver holds, that store
// waits for the line to come back and every later store of the sender waits
// too. A ring that published each message as it filled it paid that round
// trip once a message; now a burst pays it about once a publication, the
// other slots of a batch being lines the receiver is not reading. The
// sender also asks for the lines of slots a few messages ahead, so that
// they are its own by the time it fills them.
//
// Within a burst the receiver does not poll a slot at all: it would be
// reading the line of the slot the sender fills next, and take it back
// from the sender between that slot's stores. A publication made in a
// burst says so in its slots (kMoreComing), and until the next
// publication the receiver polls a count of published messages on a line
// of its own, which the sender stores once a publication. A publication
// that ends a burst (any MPI call other than a nonblocking send) sends the
// receiver back to polling the next slot, where a lone message such as a
// ping-pong's arrives in the one line the receiver reads.
//
// A slot carries a message's envelope and either its data (eager: payloads
// up to 1 KiB inline, longer ones in a buffer the slot keeps for reuse) or
// the send request itself (rendezvous: the receiver copies straight out of
// the sender's memory once the message matches). Inline data sits right
// after the envelope, so a message of up to 32 bytes fills one cache line;
// that costs each ring of 128 slots about 140 KiB, made only for the pairs
// of ranks that communicate.
//
// A full ring must not block the sender (MPI_Isend never blocks, and the
// receiver may be busy elsewhere), so its messages spill into a locked
// overflow list. Once anything has spilled, later messages spill too until
// the receiver has taken the list, which keeps them in send order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace synergy::mpi {

struct Request;

namespace detail {
#if defined(__x86_64__) || defined(__i386__)
inline bool detectPrefetchW() {
  unsigned a, b, c, d;
  return __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & bit_PRFCHW);
}
inline const bool kHasPrefetchW = detectPrefetchW();
#endif
}  // namespace detail

// Asks for the cache line at `address` in a state this core may write, so
// that a later store to it need not wait for the line. GCC's
// __builtin_prefetch makes a read prefetch for generic x86-64, which
// leaves a line the other core holds shared, and the store still waits.
inline void prefetchForWrite(const void* address) {
#if defined(__x86_64__) || defined(__i386__)
  if (detail::kHasPrefetchW)
    asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(address)));
  else
    __builtin_prefetch(address, 1);
#else
  __builtin_prefetch(address, 1);
#endif
}

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
    // this one is published, modulo 2^32 (a slot's next message is only
    // kSlots later). With batchEnd, the envelope and the first 32 bytes of
    // data it fills the slot's first cache line.
    std::atomic<uint32_t> sequence{0};
    // The number of messages published with this one, counting from the
    // ring's first, modulo 2^31 (kBatchEndMask), so that the receiver takes
    // the slots up to there without looking at their sequence; and, in
    // kMoreComing, whether the sender was in a burst that publishes again
    // soon.
    uint32_t batchEnd = 0;
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

  // Producer side. A free slot for a message of `bytes` eager bytes (0 for
  // a rendezvous one), or null when the ring is full or messages are
  // spilling; the sender fills it and calls commit().
  Slot* reserve(int64_t bytes) {
    if (spilling_.load(std::memory_order_acquire)) return nullptr;
    if (written_ - cachedHead_ == kSlots) {
      cachedHead_ = head_.load(std::memory_order_acquire);
      if (written_ - cachedHead_ == kSlots) return nullptr;
    }
    // The receiver read the lines of the slot a few messages ahead long
    // ago; asking for them now, as many as this message fills, keeps the
    // stores of that message from waiting for them.
    const auto* ahead =
        reinterpret_cast<const char*>(slotOf(written_ + kPrefetchAhead));
    int64_t used = kHeaderBytes + std::min(bytes, kInlineBytes);
    for (int64_t line = 0; line < used; line += 64) prefetchForWrite(ahead + line);
    return slotOf(written_);
  }
  // Adds the reserved slot to the messages the next publish() shows.
  void commit() { ++written_; }
  // Committed messages the receiver cannot see yet.
  uint64_t unpublished() const { return written_ - publishedByProducer_; }
  // Shows the receiver every committed message; false when there was none
  // to show. Ends a burst (see publishBatch()).
  bool publish() {
    batch_ = 1;
    return show(/*moreComing=*/false);
  }
  // For a burst of messages that may wait: publishes them once there are
  // enough. The first goes at once, so that the receiver can start on it,
  // and each batch after it is twice the one before, up to `maxBatch`:
  // few publications per burst, and a receiver that is never long idle.
  bool publishBatch(uint64_t maxBatch) {
    if (unpublished() < batch_) return false;
    batch_ = std::min(batch_ * 2, maxBatch);
    return show(/*moreComing=*/true);
  }
  // For a message that found no free slot; what the ring holds goes first.
  void spill(Arrival arrival) {
    publish();
    std::lock_guard<std::mutex> guard(overflowMutex_);
    overflow_.push_back(std::move(arrival));
    spilling_.store(true, std::memory_order_release);
  }

  // Consumer side. The oldest published slot, or null; it polls the slot
  // or the published count as the header comment tells.
  Slot* front() {
    uint64_t head = head_.load(std::memory_order_relaxed);
    Slot* slot = slotOf(head);
    if (head == publishedSeen_) {
      // Polling the count, the receiver may have taken the last
      // publication through its slots before the sender stored its count.
      if (moreComing_ ? published_.load(std::memory_order_acquire) <= head
                      : slot->sequence.load(std::memory_order_acquire) != uint32_t(head + 1))
        return nullptr;
      uint32_t batchEnd = slot->batchEnd;
      publishedSeen_ = head + ((batchEnd - uint32_t(head)) & kBatchEndMask);
      moreComing_ = batchEnd & kMoreComing;
    }
    // The lines of the slots published with this one come over while this
    // one is matched, rather than each after the one before. Slots not
    // published yet are left alone: the sender may be filling them.
    uint64_t end = std::min(publishedSeen_, head + 1 + kPrefetchAhead);
    for (uint64_t next = std::max(prefetchedTo_, head + 1); next < end; ++next)
      __builtin_prefetch(slotOf(next), 0);
    prefetchedTo_ = std::max(prefetchedTo_, end);
    return slot;
  }
  void pop() { head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }
  bool spilling() const { return spilling_.load(std::memory_order_acquire); }
  // Takes the ring's remaining messages and then the overflow list, in
  // send order, and lets the sender use the ring again.
  void takeSpilled(std::vector<Arrival>& out) {
    std::lock_guard<std::mutex> guard(overflowMutex_);
    // The sender published everything it had committed before it spilled
    // and commits nothing while spilling_ is set, so whatever the ring
    // holds now was sent before the overflow list.
    while (Slot* slot = front()) {
      out.push_back(slot->take());
      pop();
    }
    for (Arrival& arrival : overflow_) out.push_back(std::move(arrival));
    overflow_.clear();
    spilling_.store(false, std::memory_order_release);
  }

 private:
  // The slot of the n-th message. Consecutive messages use slots
  // kSlotStride apart, more than a page, where the receiver's hardware
  // prefetcher does not follow: running ahead along the ring, it would
  // take the lines of slots the sender is about to fill back from it.
  Slot* slotOf(uint64_t n) {
    uint64_t index = n % kSlots;
    return &slots_[index % (kSlots / kSlotStride) * kSlotStride + index / (kSlots / kSlotStride)];
  }

  bool show(bool moreComing) {
    if (written_ == publishedByProducer_) return false;
    uint32_t batchEnd = (uint32_t(written_) & kBatchEndMask) | (moreComing ? kMoreComing : 0);
    for (uint64_t n = publishedByProducer_; n < written_; ++n) {
      Slot* slot = slotOf(n);
      slot->batchEnd = batchEnd;
      slot->sequence.store(uint32_t(n + 1), std::memory_order_release);
    }
    publishedByProducer_ = written_;
    // The receiver polls the count only after a publication with
    // kMoreComing, until it has taken the next one.
    if (moreComing || countWatched_) published_.store(written_, std::memory_order_release);
    countWatched_ = moreComing;
    return true;
  }

  static constexpr uint64_t kPrefetchAhead = 8;
  static constexpr uint32_t kMoreComing = 1u << 31;
  static constexpr uint32_t kBatchEndMask = kMoreComing - 1;
  static constexpr int64_t kHeaderBytes = 2 * sizeof(uint32_t) + sizeof(Envelope);
  static constexpr uint64_t kSlotStride = 4;

  Slot slots_[kSlots];
  // The producer's own line.
  alignas(64) uint64_t written_ = 0;      // messages committed
  uint64_t publishedByProducer_ = 0;      // messages published
  uint64_t cachedHead_ = 0;               // the producer's last look at head_
  uint64_t batch_ = 1;                    // what publishBatch() waits for
  bool countWatched_ = false;             // the last publication had kMoreComing
  // The consumer's; the producer reads it only when the ring looks full.
  alignas(64) std::atomic<uint64_t> head_{0};
  // The consumer's: slots before publishedSeen_ are published, those
  // before prefetchedTo_ fetched; moreComing_ is the last publication's.
  uint64_t publishedSeen_ = 0;
  uint64_t prefetchedTo_ = 0;
  bool moreComing_ = false;
  // Messages published, on a line of its own: the consumer polls it
  // during a burst.
  alignas(64) std::atomic<uint64_t> published_{0};
  alignas(64) std::atomic<bool> spilling_{false};
  std::mutex overflowMutex_;
  std::deque<Arrival> overflow_;
};

}  // namespace synergy::mpi

//===- Mailbox.h - one rank's incoming messages and posted receives -------===//
//
// Every sender has its own MessageRing into a rank's mailbox, made on its
// first message. Everything else here belongs to the receiving rank alone
// and needs no lock: it drains the rings into its matching state whenever
// it posts a receive, probes, tests or waits, and matches there.
//
// Matching keeps MPI's non-overtaking order: each sender's messages arrive
// in send order; an arriving message goes to the earliest posted receive
// that fits its (context, source, tag), otherwise to the end of the
// unexpected list; a new receive takes the earliest unexpected message that
// fits, otherwise goes to the end of the posted list.
//
// A rendezvous send completes when its message matches: the receiver copies
// straight out of the sender's memory and then tells the World, which wakes
// the sender. A receive that may borrow (Request::mayBorrow) keeps the send
// instead, and the World completes it when the receive gives it back. Until
// it matches, its sender may cancel it (claimSend() in World.h); a
// cancelled one is dropped where a match would have taken it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "mpi/Datatype.h"
#include "mpi/MessageRing.h"

namespace synergy::mpi {

struct Request;

struct ProbeResult {
  int source;
  int tag;
  int64_t bytes;
};

class Mailbox {
 public:
  // `sendMatched` runs on the receiver after a rendezvous send's data has
  // been copied, to complete the send and wake its rank.
  // `startRemoteFetch` runs on the receiver when a receive matched a
  // message from another host whose data has yet to come
  // (Request::awaitsRemoteData); such a receive is always shared (it lives
  // until it completes): the call asks for the data and returns at once,
  // and whoever lands the data completes the receive (completeLanded()),
  // so that the rank can match and ask for its next messages while this
  // one is still on the wire.
  using RemoteFetchStart =
      std::function<void(Request& proxy, const std::shared_ptr<Request>& recv)>;
  Mailbox(int worldSize, std::function<void(Request&)> sendMatched,
          RemoteFetchStart startRemoteFetch = nullptr);
  ~Mailbox();
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;

  // Sender side, on world rank `from`'s thread. True when the send is done
  // with its buffer: eager sends (buffered ones, and standard ones up to
  // `eagerLimit` bytes) are copied into the message. The message is
  // published at once, with every earlier one from `from`.
  bool send(int from, const std::shared_ptr<Request>& send, int64_t eagerLimit);
  // Sends a copy of `count` instances of `type` at `data`. With `mayDefer`
  // it may leave the message unpublished, until a later message from `from`
  // or publishFrom() shows it; true when it published.
  bool sendCopy(int from, const Envelope& envelope, const uint8_t* data, const TypeLayout& type,
                int64_t count, bool mayDefer);
  // Publishes whatever `from` has left unpublished; false when nothing.
  bool publishFrom(int from);

  // Receiver side, on the owning rank's thread only.
  // Moves arrived messages into the matching state; false when none came.
  bool drain();
  // Matches `recv` now or keeps it until its message arrives.
  void post(const std::shared_ptr<Request>& recv);
  // post() in two steps, for a receive that need not be shared when its
  // message has arrived: receiveNow() matches it if it can, and a receive
  // it did not match goes, shared, to postUnmatched() before anything
  // else happens to the mailbox. A receive whose first fitting message is
  // one from another host whose data has yet to come must be shared to
  // match it: receiveNow() then leaves it unmatched and says so in
  // `mustShare`, and the receive goes, shared, to post() instead.
  bool receiveNow(Request& recv, bool& mustShare);
  void postUnmatched(const std::shared_ptr<Request>& recv) { posted_.push_back(recv); }
  // Completes a shared receive whose remote data has landed: in its buffer
  // already, or in `temporary` (the message's `bytes`), unpacked here. Any
  // thread; the World wakes the receive's rank after.
  static void completeLanded(const Envelope& envelope, const uint8_t* temporary, Request& recv);
  // Drains, then whether no message waits here unmatched. A receive posted and not matched is
  // the rank's pending request, which its own vote at a control point
  // reports (a live move carries it).
  bool holdsNoArrival() {
    drain();
    return unexpected_.empty();
  }
  // Looks at the messages drained so far.
  std::optional<ProbeResult> probe(uint32_t context, int source, int tag) const;
  // Matched probe (MPI_Mprobe): drains, then takes the earliest arrived
  // message that fits out of matching, so that no other receive can take
  // it; receiveMatched() later delivers it into a receive, shared like
  // any posted one, since the message's data may be on another host.
  std::optional<Arrival> takeMatching(uint32_t context, int source, int tag);
  void receiveMatched(const Arrival& arrival, const std::shared_ptr<Request>& recv);
  // Takes posted receive `recv` back (MPI_Cancel); false when it is not
  // posted, having matched already.
  bool withdraw(const Request& recv);
  // Where posted receive `recv` stands among those not matched, the order
  // in which they match (a live move posts them again in it); -1 when it
  // is not posted.
  ptrdiff_t postedPosition(const Request& recv) const;

 private:
  MessageRing* ring(int from) {
    MessageRing* ring = rings_[from].load(std::memory_order_acquire);
    return ring ? ring : makeRing(from);
  }
  MessageRing* makeRing(int from);
  // drain(), with `newest` (when not null) a receive being posted that
  // ranks after every one on the posted list but is not on it yet. Stops
  // once `newest` has matched: the messages behind it stay in their
  // rings, where later receives take them straight into their buffers
  // instead of through the unexpected list. A receive whose message has
  // arrived by then never goes on the list at all.
  // The receive being posted while the rings drain: ranked after every
  // receive on the posted list, not on it yet, and shared when `shared`
  // is not null. Once a message matched it (`matched`), no later one may.
  // A receive that is not shared stops at the first fitting message whose
  // data is on another host (`mustShare`): that message is kept
  // unexpected, and so is every later one, as far as this receive goes.
  struct NewestReceive {
    Request* recv = nullptr;
    const std::shared_ptr<Request>* shared = nullptr;
    bool matched = false;
    bool mustShare = false;
  };
  bool drainRings(NewestReceive* newest);
  void arrive(MessageRing::Slot& slot, NewestReceive* newest);
  void arrive(Arrival arrival, NewestReceive* newest);
  // The earliest posted receive that fits, removed (and kept alive by
  // `hold`), or else `newest` if it fits and has not matched; or null.
  // A message that is rendezvous send `rendezvous` matches only if it
  // claims the send first; when its sender cancelled it, null and
  // `cancelled`, and the message is dropped.
  Request* takePosted(const Envelope& envelope, Request* rendezvous, NewestReceive* newest,
                      std::shared_ptr<Request>& hold, bool& cancelled);
  // The earliest unexpected message that fits, removed, dropping cancelled
  // rendezvous sends on the way; with `keepRemote`, a fitting message
  // whose data is on another host is left in place and stops the search
  // (`keptRemote`).
  std::optional<Arrival> takeUnexpected(uint32_t context, int source, int tag,
                                        bool keepRemote = false, bool* keptRemote = nullptr);
  // `shared` holds `recv` when it is shared, else null.
  void deliverRendezvous(const Envelope& envelope, const std::shared_ptr<Request>& send,
                         Request& recv, const std::shared_ptr<Request>* shared);
  void deliverArrival(const Arrival& arrival, Request& recv,
                      const std::shared_ptr<Request>* shared);
  bool receiveNow(Request& recv, const std::shared_ptr<Request>* shared, bool& mustShare);

  std::unique_ptr<std::atomic<MessageRing*>[]> rings_;
  int worldSize_;
  std::function<void(Request&)> sendMatched_;
  RemoteFetchStart startRemoteFetch_;
  std::deque<Arrival> unexpected_;
  std::deque<std::shared_ptr<Request>> posted_;
  std::vector<Arrival> spilled_;  // reused by drain()
};

}  // namespace synergy::mpi

//===- RemoteRendezvous.cpp - large messages to ranks on other hosts ------===//
//
// A message to a rank on another host that is at least the rendezvous
// threshold does not travel eagerly: were it to, the receiving host would
// have to hold the data of every such message its ranks had not asked for
// yet, without bound, and would copy each one once more from that buffer
// into the receive. Instead:
//
//   1. The sender queues only its envelope (MpiRequestToSend) and keeps the
//      send under an id of its host's. The envelope enters the receiver's
//      Mailbox through its sender's ring like any message, so matching,
//      non-overtaking order and probes (which see its size) are unchanged.
//   2. When a receive matches it, the receiving rank keeps the receive
//      under an id of its own host's and answers MpiClearToSend with both
//      ids; the sending host's link answers that on its I/O thread, without
//      the sending rank, with the data (MpiRendezvousData and
//      MpiMessagePart frames, read in place from the send buffer or from a
//      packed copy).
//   3. The receiving host places the data straight into the receive
//      buffer when that is contiguous and large enough, otherwise into a
//      temporary that the Mailbox unpacks into it; the receive completes
//      when the last byte has landed. The receiving rank waits for that
//      inside the match, busy rather than blocked for the deadlock watch,
//      as it is while it copies any message; the frames on their way keep
//      the job-wide check from calling that a deadlock as well. It polls
//      the connections while it waits (World::pollConnectionsUntil), as a
//      rank waiting for a message does, and for as long as the data keeps
//      landing: so it reads the data itself, as it arrives, rather than
//      sleeping until the link's thread has woken for it, read it all and
//      woken it in turn (two thread wake-ups and a data-sized delay a
//      message). Only when nothing has come within the poll does it sleep
//      and leave the reading to the link's thread.
//
// A host that has left the job (its ranks all ended) answers no
// clear-to-send any more, and says so after the last data it sent
// (remoteHostEnded()): a receive that matches a message of its still
// waiting for its data (an MPI_Isend never completed, or a buffered send
// not received before its host left) can never complete, and ends the job
// with an error instead of waiting for ever.
//
// A standard or synchronous send completes once its data is written out
// (so after the receive matched); a buffered one completes at once, its
// packed copy going in its place. Cancelling a cross-host send stays
// refused (RequestCancellation.cpp), also before the clear-to-send.
//
//===----------------------------------------------------------------------===//
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "mpi/MpiAbi.h"
#include "mpi/World.h"

namespace synergy::mpi {

namespace {

// Rendezvous costs a round trip more and saves the receiving host a copy
// and the memory of an unexpected message. osu latency and bandwidth at
// np 2 over two synergyd on loopback (a loaded 2-core machine, so rough):
// with a 64 KiB threshold, latency at 64 and 256 KiB was twice the eager
// path's; at 1 MiB, rendezvous took 1.4x eager latency but 3x its
// bandwidth, and at 4 MiB it won both. 1 MiB keeps the messages whose
// latency the round trip would double eager. SYNERGY_MPI_RENDEZVOUS_BYTES
// sets another threshold (tests use small ones).
constexpr int64_t kDefaultRendezvousBytes = 1 << 20;

// How often a rank waiting for its data looks whether the job aborted.
constexpr auto kAbortLook = std::chrono::milliseconds(10);
// The longest a receiving rank polls on for data that has begun to land
// before it sleeps: a whole 64 MiB frame takes about 15 ms on loopback.
constexpr auto kLandingPoll = std::chrono::milliseconds(50);

// The receiving side's stand-in for a rendezvous send on another host.
struct RequestToSendProxy : Request {
  uint64_t sendId = 0;
};

}  // namespace

struct World::RendezvousTables {
  std::mutex mutex;
  uint64_t lastId = 0;
  // Sends of this host waiting for their receiver's clear-to-send.
  struct Waiting {
    std::shared_ptr<Request> send;
    const uint8_t* data = nullptr;
    std::shared_ptr<uint8_t[]> packed;  // noncontiguous and buffered sends
    int to = 0;
  };
  std::unordered_map<uint64_t, Waiting> sends;
  // Receives of this host whose data is on its way.
  struct Landing {
    int from = 0;
    int to = 0;
    int64_t bytes = 0;
    uint8_t* target = nullptr;
    std::unique_ptr<uint8_t[]> temporary;
    // Set under the mutex; read without it by the polling rank.
    std::atomic<bool> placing{false};
    std::atomic<bool> landed{false};
    std::condition_variable landedSignal;
  };
  std::unordered_map<uint64_t, std::shared_ptr<Landing>> receives;
  // The hosts whose ranks have all ended (remoteHostEnded()).
  std::unordered_set<int> endedHosts;
};

std::shared_ptr<World::RendezvousTables> World::makeRendezvousTables() {
  return std::make_shared<RendezvousTables>();
}

int64_t World::rendezvousThresholdBytes() {
  const char* text = std::getenv("SYNERGY_MPI_RENDEZVOUS_BYTES");
  if (!text || !*text) return kDefaultRendezvousBytes;
  char* end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  // A message of no data has nothing to wait for.
  if (*end != '\0' || value < 1) return kDefaultRendezvousBytes;
  return int64_t(value);
}

void World::sendRendezvous(const std::shared_ptr<Request>& send, int destWorldRank) {
  RendezvousTables::Waiting waiting{send, nullptr, nullptr, destWorldRank};
  if (send->buffered || !send->type->isContiguous()) {
    waiting.packed.reset(new uint8_t[size_t(send->bytes)]);
    packTyped(send->buffer, *send->type, send->count, waiting.packed.get());
    waiting.data = waiting.packed.get();
  } else {
    waiting.data = send->buffer + send->type->lb;
  }
  RemoteMessage message{send->owner, destWorldRank,
                        Envelope{send->context, send->senderRank, send->tag, send->bytes}, 0};
  {
    std::lock_guard<std::mutex> guard(rendezvous_->mutex);
    message.matchId = ++rendezvous_->lastId;
    rendezvous_->sends.emplace(message.matchId, std::move(waiting));
  }
  if (send->buffered) markComplete(*send);
  remote_->sendRequestToSend(message);
}

void World::deliverRequestToSend(const RemoteMessage& message) {
  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  auto proxy = std::make_shared<RequestToSendProxy>();
  proxy->sendId = message.matchId;
  proxy->kind = Request::Kind::Send;
  proxy->owner = message.from;
  setType(*proxy, bytes);
  proxy->count = message.envelope.bytes;
  proxy->bytes = message.envelope.bytes;
  proxy->context = message.envelope.context;
  proxy->senderRank = message.envelope.source;
  proxy->tag = message.envelope.tag;
  proxy->awaitsRemoteData = true;
  mailboxes_[message.to]->send(message.from, proxy, /*eagerLimit=*/0);
  notify(message.to);
}

namespace {

// While a rank that polls with arrivals left to it waits here for its data,
// their arrival must wake the link's thread again: the rank reads the data
// itself only while it keeps landing, then sleeps and leaves the rest to
// that thread. Restores the poll when the wait ends.
class PollPause {
 public:
  PollPause(RemoteRanks& remote, bool polling) : remote_(remote), paused_(polling) {
    if (paused_) remote_.stopPolling();
  }
  ~PollPause() {
    if (paused_) remote_.startPolling();
  }
  PollPause(const PollPause&) = delete;
  PollPause& operator=(const PollPause&) = delete;

 private:
  RemoteRanks& remote_;
  bool paused_;
};

}  // namespace

bool World::receiveRemoteRendezvous(Request& proxy, Request& recv,
                                    std::unique_ptr<uint8_t[]>& temporary) {
  auto landing = std::make_shared<RendezvousTables::Landing>();
  landing->from = proxy.owner;
  landing->to = recv.owner;
  landing->bytes = proxy.bytes;
  if (recv.type->isContiguous() && proxy.bytes <= recv.bytes) {
    landing->target = recv.buffer + recv.type->lb;
  } else {
    landing->temporary.reset(new uint8_t[size_t(proxy.bytes)]);
    landing->target = landing->temporary.get();
  }
  int fromHost = remote_->hostOf(proxy.owner);
  uint64_t receiveId;
  {
    std::lock_guard<std::mutex> guard(rendezvous_->mutex);
    if (rendezvous_->endedHosts.count(fromHost)) return abortForUnsentData(proxy, recv);
    receiveId = ++rendezvous_->lastId;
    rendezvous_->receives.emplace(receiveId, landing);
  }
  PollPause pause(*remote_, pollingOtherHosts_);
  remote_->clearToSend(proxy.owner, static_cast<RequestToSendProxy&>(proxy).sendId, recv.owner,
                       receiveId);
  // Once its first frame has come, the rest of the data is on the same
  // connection right behind it: polling on until it has all landed ends
  // when the transfer does, or with the job, unless the sender stalls
  // mid-message, which kLandingPoll bounds.
  auto landed = [&] { return landing->landed.load(); };
  auto pollEnd = std::chrono::steady_clock::now() + kLandingPoll;
  while (!pollConnectionsUntil(landed) && landing->placing.load() && !aborted_.load() &&
         std::chrono::steady_clock::now() < pollEnd) {
  }
  std::unique_lock<std::mutex> lock(rendezvous_->mutex);
  while (!landing->landed) {
    // The entry stays in the table: the I/O thread may be placing data in
    // the temporary while the job goes down.
    if (aborted_.load()) return false;
    if (!landing->placing && rendezvous_->endedHosts.count(fromHost)) {
      rendezvous_->receives.erase(receiveId);
      lock.unlock();
      return abortForUnsentData(proxy, recv);
    }
    landing->landedSignal.wait_for(lock, kAbortLook);
  }
  temporary = std::move(landing->temporary);
  return true;
}

bool World::abortForUnsentData(const Request& proxy, const Request& recv) {
  abort(abi::kErrOther, "rank " + std::to_string(recv.owner) + ": the message of " +
                            std::to_string(proxy.bytes) + " bytes from rank " +
                            std::to_string(proxy.owner) + " that it received cannot arrive: " +
                            "the ranks of rank " + std::to_string(proxy.owner) +
                            "'s host ended without sending it (a send never completed)");
  return false;
}

void World::remoteHostEnded(int host) {
  std::lock_guard<std::mutex> guard(rendezvous_->mutex);
  rendezvous_->endedHosts.insert(host);
  for (auto& entry : rendezvous_->receives)
    if (remote_->hostOf(entry.second->from) == host) entry.second->landedSignal.notify_all();
}

bool World::remoteClearToSend(int sender, uint64_t sendId, int receiver, uint64_t receiveId,
                              std::string& reason) {
  RendezvousTables::Waiting waiting;
  {
    std::lock_guard<std::mutex> guard(rendezvous_->mutex);
    auto it = rendezvous_->sends.find(sendId);
    if (receiveId == 0 || it == rendezvous_->sends.end() || it->second.send->owner != sender ||
        it->second.to != receiver) {
      reason = "MpiClearToSend for no rendezvous send " + std::to_string(sendId) + " of rank " +
               std::to_string(sender) + " to rank " + std::to_string(receiver);
      return false;
    }
    waiting = std::move(it->second);
    rendezvous_->sends.erase(it);
  }
  const uint8_t* data = waiting.data;
  int64_t bytes = waiting.send->bytes;
  remote_->sendRendezvousData(receiver, receiveId, data, bytes, [this, waiting] {
    if (waiting.send->buffered) return;
    markComplete(*waiting.send);
    notify(waiting.send->owner);
  });
  return true;
}

uint8_t* World::remoteRendezvousTarget(int fromHost, int receiver, uint64_t receiveId,
                                       int64_t bytes, std::string& reason) {
  std::lock_guard<std::mutex> guard(rendezvous_->mutex);
  auto it = rendezvous_->receives.find(receiveId);
  RendezvousTables::Landing* landing = it == rendezvous_->receives.end() ? nullptr : it->second.get();
  if (!landing || landing->placing || landing->to != receiver ||
      remote_->hostOf(landing->from) != fromHost || landing->bytes != bytes) {
    reason = "MpiRendezvousData of " + std::to_string(bytes) + " bytes for receive " +
             std::to_string(receiveId) + " of rank " + std::to_string(receiver) +
             ", which does not wait for them from this host";
    return nullptr;
  }
  landing->placing = true;
  return landing->target;
}

void World::remoteRendezvousLanded(uint64_t receiveId) {
  int receiver;
  {
    std::lock_guard<std::mutex> guard(rendezvous_->mutex);
    auto it = rendezvous_->receives.find(receiveId);
    receiver = it->second->to;
    it->second->landed = true;
    it->second->landedSignal.notify_all();
    rendezvous_->receives.erase(it);
  }
  notify(receiver);
}

}  // namespace synergy::mpi

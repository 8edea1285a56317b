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
//      temporary that is unpacked into it; the receive completes when the
//      last byte has landed, on whichever thread landed it.
//
// A receive that matches such a message is always shared: MPI_Irecv's
// spare record leaves it to a shared receive, and MPI_Mrecv and
// MPI_Imrecv receive into a shared one. It does not wait in the match: the
// rank goes on matching, so a window of receives has all its
// clear-to-sends out at once and the sending host writes their data back
// to back, instead of one round trip and one idle sender per message. Its
// wait polls the connections as any wait does, and for as long as data of
// its messages keeps landing (pollWhileLanding), so it reads the data
// itself, as it arrives, rather than sleeping until the link's thread has
// woken for it, read it all and woken it in turn (two thread wake-ups and
// a data-sized delay a message); the frames on their way keep the
// job-wide deadlock check quiet meanwhile.
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
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mpi/Mailbox.h"
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
  std::unordered_map<uint64_t, std::shared_ptr<RendezvousLanding>> receives;
  // The hosts whose ranks have all ended (remoteHostEnded()).
  std::unordered_set<int> endedHosts;
  // By world rank: its receives whose data has begun to land and not
  // ended (read without the mutex by the rank's wait).
  std::unique_ptr<std::atomic<int>[]> placingFor;
};

struct World::RendezvousLanding {
  int from = 0;
  int to = 0;
  int64_t bytes = 0;
  uint64_t receiveId = 0;
  uint8_t* target = nullptr;
  std::unique_ptr<uint8_t[]> temporary;
  // The receive, which completes where its data lands, and its message's
  // envelope.
  std::shared_ptr<Request> recv;
  Envelope envelope;
  // Set under the mutex once the data has begun to land.
  bool placing = false;
};

std::shared_ptr<World::RendezvousTables> World::makeRendezvousTables(int worldSize) {
  auto tables = std::make_shared<RendezvousTables>();
  tables->placingFor.reset(new std::atomic<int>[size_t(worldSize)]);
  for (int rank = 0; rank < worldSize; ++rank) tables->placingFor[rank].store(0);
  return tables;
}

bool World::pollWhileLanding(int rank, util::FunctionRef<bool()> done) {
  auto pollEnd = std::chrono::steady_clock::now() + kLandingPoll;
  while (rendezvous_->placingFor[rank].load(std::memory_order_relaxed) > 0 &&
         std::chrono::steady_clock::now() < pollEnd) {
    if (done()) return true;
    std::this_thread::yield();
  }
  return done();
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

void World::askForRendezvousData(Request& proxy, const std::shared_ptr<Request>& recv) {
  auto landing = std::make_shared<RendezvousLanding>();
  landing->from = proxy.owner;
  landing->to = recv->owner;
  landing->bytes = proxy.bytes;
  if (recv->type->isContiguous() && proxy.bytes <= recv->bytes) {
    landing->target = recv->buffer + recv->type->lb;
  } else {
    landing->temporary.reset(new uint8_t[size_t(proxy.bytes)]);
    landing->target = landing->temporary.get();
  }
  landing->recv = recv;
  landing->envelope = Envelope{proxy.context, proxy.senderRank, proxy.tag, proxy.bytes};
  int fromHost = remote_->hostOf(proxy.owner);
  uint64_t receiveId;
  {
    std::lock_guard<std::mutex> guard(rendezvous_->mutex);
    if (rendezvous_->endedHosts.count(fromHost)) {
      abortForUnsentData(proxy.bytes, proxy.owner, recv->owner);
      return;
    }
    receiveId = ++rendezvous_->lastId;
    landing->receiveId = receiveId;
    rendezvous_->receives.emplace(receiveId, std::move(landing));
  }
  remote_->clearToSend(proxy.owner, static_cast<RequestToSendProxy&>(proxy).sendId, recv->owner,
                       receiveId);
}

void World::abortForUnsentData(int64_t bytes, int from, int to) {
  abort(abi::kErrOther, "rank " + std::to_string(to) + ": the message of " +
                            std::to_string(bytes) + " bytes from rank " + std::to_string(from) +
                            " that it received cannot arrive: the ranks of rank " +
                            std::to_string(from) +
                            "'s host ended without sending it (a send never completed)");
}

void World::remoteHostEnded(int host) {
  // A receive waits for its data outside the match, so the end is
  // reported here, unless its data has begun to land (it then lands
  // whole).
  std::vector<std::shared_ptr<RendezvousLanding>> unsendable;
  {
    std::lock_guard<std::mutex> guard(rendezvous_->mutex);
    rendezvous_->endedHosts.insert(host);
    for (auto it = rendezvous_->receives.begin(); it != rendezvous_->receives.end();) {
      RendezvousLanding& landing = *it->second;
      if (remote_->hostOf(landing.from) != host) {
        ++it;
      } else if (!landing.placing) {
        unsendable.push_back(std::move(it->second));
        it = rendezvous_->receives.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& landing : unsendable) abortForUnsentData(landing->bytes, landing->from, landing->to);
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
  RendezvousLanding* landing = it == rendezvous_->receives.end() ? nullptr : it->second.get();
  if (!landing || landing->placing || landing->to != receiver ||
      remote_->hostOf(landing->from) != fromHost || landing->bytes != bytes) {
    reason = "MpiRendezvousData of " + std::to_string(bytes) + " bytes for receive " +
             std::to_string(receiveId) + " of rank " + std::to_string(receiver) +
             ", which does not wait for them from this host";
    return nullptr;
  }
  landing->placing = true;
  rendezvous_->placingFor[receiver].fetch_add(1, std::memory_order_relaxed);
  return landing->target;
}

void World::remoteRendezvousLanded(uint64_t receiveId) {
  std::shared_ptr<RendezvousLanding> landing;
  {
    std::lock_guard<std::mutex> guard(rendezvous_->mutex);
    auto it = rendezvous_->receives.find(receiveId);
    landing = std::move(it->second);
    rendezvous_->receives.erase(it);
    rendezvous_->placingFor[landing->to].fetch_sub(1, std::memory_order_relaxed);
  }
  Mailbox::completeLanded(landing->envelope, landing->temporary.get(), *landing->recv);
  notify(landing->to);
}

}  // namespace synergy::mpi

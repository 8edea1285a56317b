//===- MpiPeerLink.cpp - Cross-host MPI messages over the transport -------===//
//
// This file implements MpiPeerLink.h. The table of connections by part is
// complete before join() returns, and only read afterwards, so ranks send
// without a lock; until then it is guarded by a mutex shared with the I/O
// thread, which registers the parts that introduce themselves. The I/O
// thread reaches the World only under a second mutex, which leave() takes
// to cut it off: frames that arrive after this part's ranks ended are
// dropped rather than delivered into a World being destroyed.
//
//===----------------------------------------------------------------------===//
#include "cluster/MpiPeerLink.h"

#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "cluster/CheckpointAgreement.h"
#include "cluster/ClusterState.h"
#include "cluster/CpuSharing.h"
#include "cluster/EagerCredit.h"
#include "cluster/RankRoutes.h"
#include "cluster/RouteSwitch.h"
#include "cluster/RankSectionTransfer.h"
#include "mpi/HostCollectives.h"
#include "mpi/World.h"
#include "transport/ClusterToken.h"
#include "transport/FrameCodec.h"
#include "transport/Transport.h"
#include "util/FileIO.h"
#include "util/LittleEndian.h"

namespace synergy::cluster {

namespace {

// How long a part waits for all others to come up: each may first have to
// compile the module.
constexpr auto kJoinLimit = std::chrono::seconds(120);
constexpr auto kFlushLimit = std::chrono::seconds(10);
// The freed heap memory a job part keeps for the next frames (runJobPart).
constexpr int kKeptFreeHeapBytes = 512 << 20;
// The eager data (mpi/RemoteRanks.h) a part grants each other part that its
// ranks have not received yet; SYNERGY_MPI_EAGER_CREDIT_BYTES sets another
// (tests use small ones). 16 MiB is 32 messages just under the 1 MiB
// rendezvous threshold, or the whole window of osu bandwidth at 256 KiB.
constexpr int64_t kDefaultEagerGrantBytes = 16 << 20;
// The status a job ends with when a part loses another before it finished,
// as the client's when it loses a host (scheduler/RemoteJob.cpp).
constexpr int kPeerLostExitStatus = 2;

int64_t eagerGrantBytes() {
  const char* text = std::getenv("SYNERGY_MPI_EAGER_CREDIT_BYTES");
  if (!text || !*text) return kDefaultEagerGrantBytes;
  char* end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 1 || uint64_t(value) > transport::kMaxMpiEagerGrantBytes)
    return kDefaultEagerGrantBytes;
  return int64_t(value);
}

// The frames a waiting rank may take in itself (MpiPeerLink.h): messages,
// rendezvous steps, acknowledgements and credit, whose handlers touch only
// the sending part's own state and the World's thread-safe entry points.
// The others (one-sided operations, which may need a window lock that the
// waiting rank holds; the deadlock check's and checkpoints' agreement)
// stay on the I/O thread.
bool receivableOnRankThread(transport::FrameType type) {
  using transport::FrameType;
  switch (type) {
    case FrameType::MpiMessage:
    case FrameType::MpiMessageHead:
    case FrameType::MpiMessagePart:
    case FrameType::MpiRequestToSend:
    case FrameType::MpiClearToSend:
    case FrameType::MpiRendezvousData:
    case FrameType::MpiMatched:
    case FrameType::MpiEagerCredit:
      return true;
    default:
      return false;
  }
}

}  // namespace

class MpiPeerLink::Impl {
 public:
  using CheckpointFrames = MpiPeerLink::CheckpointFrames;
  void setCheckpointFrames(CheckpointFrames handler) {
    std::lock_guard<std::mutex> guard(mutex_);
    checkpointFrames_ = std::move(handler);
  }
  void sendToPart(uint32_t part, transport::FrameType type, std::vector<uint8_t> payload) {
    std::shared_ptr<transport::Connection> peer;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (part < peers_.size()) peer = peers_[part];
    }
    if (peer) peer->send(type, std::move(payload));
  }
  uint64_t framesSent() const { return framesSent_.load(); }
  uint64_t framesReceived() const { return framesReceived_.load(); }
  bool partClosed(uint32_t part) const {
    return part < closedParts_.size() && closedParts_[part].load();
  }
  // The table in force: one acquire load, no lock (switchRoutes).
  const RankRoutes& routes() const { return *routes_.load(std::memory_order_acquire); }
  RankSectionTransfer& sectionTransfer() { return sections_; }

  // How sections_ reaches the other parts: over their connections, and its
  // lines on stderr as the transport's are.
  RankSectionTransfer::Links sectionLinks(const JobPart& part) {
    return RankSectionTransfer::Links{
        .selfPart = part.partIndex,
        .partCount = uint32_t(part.partRanks.size()),
        .send = [this](uint32_t to, transport::FrameType type,
                       std::vector<uint8_t> payload) { sendToPart(to, type, std::move(payload)); },
        .sendLent =
            [this](uint32_t to, std::vector<transport::LentFrame> frames,
                   std::function<void()> released) {
              std::shared_ptr<transport::Connection> peer;
              {
                std::lock_guard<std::mutex> guard(mutex_);
                if (to < peers_.size()) peer = peers_[to];
              }
              if (peer)
                peer->sendLent(std::move(frames), std::move(released));
              else
                released();
            },
        .log = [](const std::string& line) {
          std::fprintf(stderr, "synergy-run: cluster: %s\n", line.c_str());
        }};
  }

  Impl(const JobPart& part, mpi::World& world)
      : part_(part),
        world_(&world),
        credit_(part.partRanks.size(), eagerGrantBytes()),
        sections_(sectionLinks(part)) {
    routeTables_.push_back(std::make_unique<const RankRoutes>(part.routes()));
    routes_.store(routeTables_.back().get());
    peers_.resize(part.partRanks.size());
    assembling_.resize(part.partRanks.size());
    partStates_.resize(part.partRanks.size());
    closedParts_ = std::vector<std::atomic<bool>>(part.partRanks.size());
    leftParts_ = std::vector<std::atomic<bool>>(part.partRanks.size());
  }

  bool join(std::string& error) {
    std::string token;
    if (!transport::readClusterToken(part_.tokenFile, token, error)) return false;
    transport_ = std::make_unique<transport::Transport>(transport::TransportConfig{
        .token = token,
        .onFrame = [this](transport::Connection& from, transport::Frame&& frame,
                          std::string& reason) { return onFrame(from, std::move(frame), reason); },
        .placePayload = [this](transport::Connection& from, transport::FrameType type,
                               uint64_t bytes) { return placePayload(from, type, bytes); },
        .onPlacedFrame = [this](transport::Connection& from, transport::FrameType type,
                                uint64_t bytes, std::string& reason) {
          return onPlacedFrame(from, type, bytes, reason);
        },
        .onClosed = [this](transport::Connection& connection) { onPeerClosed(connection); },
        .log = [this](const std::string& line) { onTransportLog(line); },
        .receivableHere = receivableOnRankThread});
    if (!transport_->listen(part_.address, 0, error)) return false;
    std::string endpoint = formatJobEndpoint(part_.address, transport_->listeningPort());
    auto deadline = std::chrono::steady_clock::now() + kJoinLimit;
    // This part connects to the higher parts only, so it needs only their
    // endpoints.
    std::map<uint32_t, std::string> endpoints;
    if (!exchangeJobEndpoints(part_, endpoint, part_.partIndex + 1, kJoinLimit, endpoints, error))
      return false;
    partAddresses_.assign(part_.partRanks.size(), "");
    partAddresses_[part_.partIndex] = part_.address;
    for (uint32_t p = part_.partIndex + 1; p < part_.partRanks.size(); ++p) {
      std::shared_ptr<transport::Connection> connection =
          connectToPart(*transport_, part_, endpoints, p, error);
      if (!connection) return false;
      uint16_t port = 0;  // connectToPart() checked the endpoint
      splitJobEndpoint(endpoints[p], partAddresses_[p], port);
      {
        std::lock_guard<std::mutex> guard(mutex_);
        partOfConnection_[connection.get()] = p;
        peers_[p] = connection;
      }
      std::vector<uint8_t> hello(transport::kMpiHelloBytes);
      util::writeLittleEndian(hello.data(), part_.jobId, 8);
      util::writeLittleEndian(hello.data() + 8, part_.partIndex, 4);
      connection->send(transport::FrameType::MpiHello, std::move(hello));
      sendGrant(*connection);
    }
    // Every other part's grant has come too, so that the first messages
    // go eagerly.
    std::unique_lock<std::mutex> lock(mutex_);
    if (!introduced_.wait_until(lock, deadline, [&] {
          for (uint32_t p = 0; p < peers_.size(); ++p)
            if (p != part_.partIndex && (!peers_[p] || !credit_.hasGrantFrom(p))) return false;
          return true;
        })) {
      error = "job " + std::to_string(part_.jobId) + ": the other hosts of the job did not " +
              "connect and grant eager credit within " + std::to_string(kJoinLimit.count()) +
              " s";
      return false;
    }
    // The lower parts connected from their hosts' addresses.
    for (uint32_t p = 0; p < part_.partIndex; ++p) {
      const std::string& peer = peers_[p]->peerName();
      partAddresses_[p] = peer.substr(0, peer.rfind(':'));
    }
    watchingPeers_ = true;
    return true;
  }

  // Called by a waiting rank (MpiPeerLink.h), which runs only once join()
  // has succeeded.
  void receiveWhileWaiting() { transport_->receiveHere(); }
  void startPolling() { transport_->startReadingHere(); }
  void stopPolling(bool mayLinger) { transport_->stopReadingHere(mayLinger); }

  // A line from the transport. The drop of a connection to another part
  // is held back for onPeerClosed(), which the transport calls next on the
  // same thread, so that it is told once, as the reason the job ends.
  void onTransportLog(const std::string& line) {
    if (namesPartConnection(line)) {
      droppedPartLine() = line;
      return;
    }
    std::fprintf(stderr, "synergy-run: cluster: %s\n", line.c_str());
  }

  // A connection to another part closed. Before that part said it had
  // finished (MpiHostState) or aborted the job (MpiAbort), its ranks are
  // lost to this part's, which would wait for them for ever: the job ends
  // with one line naming the part's host and ranks and why, whichever
  // side closed (this part, for a frame it refused; the other, or its
  // host, for whatever reason).
  void onPeerClosed(transport::Connection& connection) {
    std::string dropLine = std::exchange(droppedPartLine(), "");
    std::optional<uint32_t> part = partOf(connection);
    if (part) closedParts_[*part] = true;
    if (part) sections_.partClosed(*part);
    bool joined = watchingPeers_;
    bool finished = false;
    if (part && joined) {
      // Once this part has said that its own ranks finished, the others
      // send it no more states (sendState), not even their final one: a
      // part that closes then may have finished unseen, and no rank here
      // waits for it anyway.
      std::lock_guard<std::mutex> guard(stateMutex_);
      finished = partStates_[*part].finished || partStates_[part_.partIndex].finished;
    }
    std::lock_guard<std::mutex> guard(worldMutex_);
    // At the job's end (this part has left, or one of the two finished)
    // the drop is no loss, nor worth a line: a part that exits with this
    // part's final frames unread resets the connection ('read failed:
    // Connection reset by peer'), which is how parts often part. Had that
    // part failed, its own exit status tells the client.
    if (!world_ || finished) return;
    // Before join() succeeded the drop is that failure's, which join()
    // reports; the line says why.
    if (!part || !joined) {
      if (!dropLine.empty()) std::fprintf(stderr, "synergy-run: cluster: %s\n", dropLine.c_str());
      return;
    }
    std::string peer = connection.peerName();
    std::string where = "job " + std::to_string(part_.jobId) + ": ";
    std::string what = "the part on host " + peer.substr(0, peer.rfind(':')) + " (" +
                       routes().describe(*part) + ")";
    size_t reasonAt = dropLine.find(peer + ": ");
    std::string message =
        reasonAt == std::string::npos
            ? where + what + " closed its connection before its ranks finished"
            : where + "dropped the connection to " + what + ": " +
                  dropLine.substr(reasonAt + peer.size() + 2);
    world_->abort(kPeerLostExitStatus, message);
  }

  // Each part's address by part index, once join() has succeeded.
  const std::vector<std::string>& partAddresses() const { return partAddresses_; }

  void send(const mpi::RemoteMessage& message, util::FunctionRef<void(uint8_t*)> pack) {
    uint64_t bytes = uint64_t(message.envelope.bytes);
    if (bytes > transport::kMaxMpiMessageDataBytes) {
      // Packed once into a buffer of its own, which the frames then lend.
      auto packed = std::make_shared<std::unique_ptr<uint8_t[]>>(new uint8_t[bytes]);
      pack(packed->get());
      return sendInPlace(message, {{packed->get(), int64_t(bytes)}}, [packed] {});
    }
    std::vector<uint8_t> payload(transport::kMpiMessageHeaderBytes + bytes);
    putMessageHeader(payload.data(), message);
    pack(payload.data() + transport::kMpiMessageHeaderBytes);
    ++framesSent_;
    peerOf(message.to)->send(transport::FrameType::MpiMessage, std::move(payload));
  }

  // A message short enough for one frame is packed straight into the
  // connection's batch.
  void sendBatched(const mpi::RemoteMessage& message, util::FunctionRef<void(uint8_t*)> pack) {
    uint64_t bytes = uint64_t(message.envelope.bytes);
    if (bytes > transport::kMaxMpiMessageDataBytes) return send(message, pack);
    ++framesSent_;
    peerOf(message.to)->sendBatched(transport::FrameType::MpiMessage,
                                    transport::kMpiMessageHeaderBytes + bytes,
                                    [&](uint8_t* payload) {
                                      putMessageHeader(payload, message);
                                      pack(payload + transport::kMpiMessageHeaderBytes);
                                    });
  }

  void publishBatched() {
    for (const std::shared_ptr<transport::Connection>& peer : peers_)
      if (peer) peer->flushBatch();
  }

  // A message of several pieces is one frame, or one head and its parts,
  // as a message of one piece is: the receiver cannot tell them apart.
  void sendInPlace(const mpi::RemoteMessage& message, const std::vector<mpi::LentData>& pieces,
                   std::function<void()> written) {
    uint64_t bytes = uint64_t(message.envelope.bytes);
    std::vector<transport::LentFrame> frames;
    if (bytes <= transport::kMaxMpiMessageDataBytes) {
      std::vector<uint8_t> header(transport::kMpiMessageHeaderBytes);
      putMessageHeader(header.data(), message);
      transport::LentFrame frame{transport::FrameType::MpiMessage, std::move(header), {}};
      for (const mpi::LentData& piece : pieces) frame.lent.push_back({piece.data, size_t(piece.bytes)});
      frames.push_back(std::move(frame));
    } else {
      std::vector<uint8_t> head(transport::kMpiMessageHeadBytes);
      putMessageHeader(head.data(), message);
      util::writeLittleEndian(head.data() + transport::kMpiMessageHeaderBytes, bytes, 8);
      frames.push_back({transport::FrameType::MpiMessageHead, std::move(head), {}});
      for (const mpi::LentData& piece : pieces) appendParts(frames, piece.data, uint64_t(piece.bytes));
    }
    framesSent_ += frames.size();
    peerOf(message.to)->sendLent(std::move(frames), std::move(written));
  }

  void sendRequestToSend(const mpi::RemoteMessage& message) {
    std::vector<uint8_t> payload(transport::kMpiRequestToSendBytes);
    putMessageHeader(payload.data(), message);
    util::writeLittleEndian(payload.data() + transport::kMpiMessageHeaderBytes,
                            uint64_t(message.envelope.bytes), 8);
    ++framesSent_;
    peerOf(message.to)->send(transport::FrameType::MpiRequestToSend, std::move(payload));
  }

  void clearToSend(int sender, uint64_t sendId, int receiver, uint64_t receiveId) {
    std::vector<uint8_t> payload(transport::kMpiClearToSendBytes);
    util::writeLittleEndian(payload.data(), uint32_t(sender), 4);
    util::writeLittleEndian(payload.data() + 4, uint32_t(receiver), 4);
    util::writeLittleEndian(payload.data() + 8, sendId, 8);
    util::writeLittleEndian(payload.data() + 16, receiveId, 8);
    ++framesSent_;
    peerOf(sender)->send(transport::FrameType::MpiClearToSend, std::move(payload));
  }

  // The data goes as a MpiRendezvousData and its MpiMessagePart frames,
  // back to back, each read in place.
  void sendRendezvousData(int receiver, uint64_t receiveId, const uint8_t* data, int64_t size,
                          std::function<void()> written) {
    uint64_t bytes = uint64_t(size);
    std::vector<transport::LentFrame> frames;
    std::vector<uint8_t> head(transport::kMpiRendezvousDataBytes);
    util::writeLittleEndian(head.data(), uint32_t(receiver), 4);
    util::writeLittleEndian(head.data() + 8, receiveId, 8);
    util::writeLittleEndian(head.data() + 16, bytes, 8);
    frames.push_back({transport::FrameType::MpiRendezvousData, std::move(head), {}});
    appendParts(frames, data, bytes);
    framesSent_ += frames.size();
    peerOf(receiver)->sendLent(std::move(frames), std::move(written));
  }

  bool takeEagerCredit(int receiver, int64_t bytes) {
    return credit_.take(routes().partOf(uint32_t(receiver)), bytes);
  }

  void returnEagerCredit(int sender, int64_t bytes) {
    uint32_t part = routes().partOf(uint32_t(sender));
    int64_t batch = credit_.release(part, bytes);
    if (batch == 0) return;
    std::vector<uint8_t> payload(transport::kMpiEagerCreditBytes);
    util::writeLittleEndian(payload.data(), uint64_t(batch), 8);
    creditFramesSent_.fetch_add(1, std::memory_order_relaxed);
    peers_[part]->send(transport::FrameType::MpiEagerCredit, std::move(payload));
  }

  // The acknowledgement carries the message's credit and all the credit
  // gathered for the sender's part, so that a synchronous send costs one
  // frame back, not two (a host calling MPI_Reduce in a loop, whose first
  // segment goes synchronously, got an MpiMatched and an MpiEagerCredit a
  // call), and the batch gathering for that part starts afresh.
  void acknowledgeMatch(int sender, uint64_t matchId, int64_t creditBytes) {
    int64_t credit = credit_.releaseAll(routes().partOf(uint32_t(sender)), creditBytes);
    std::vector<uint8_t> payload(credit != 0 ? transport::kMpiMatchedWithCreditBytes
                                             : transport::kMpiMatchedBytes);
    util::writeLittleEndian(payload.data(), uint32_t(sender), 4);
    util::writeLittleEndian(payload.data() + 4, matchId, 8);
    if (credit != 0)
      util::writeLittleEndian(payload.data() + transport::kMpiMatchedBytes, uint64_t(credit), 8);
    ++framesSent_;
    peerOf(sender)->send(transport::FrameType::MpiMatched, std::move(payload));
  }

  void sendRma(const mpi::RemoteRmaOp& op, util::FunctionRef<void(uint8_t*)> pack) {
    size_t runBytes = op.runs.size() * transport::kMpiRmaRunBytes;
    std::vector<uint8_t> payload(transport::kMpiRmaHeaderBytes + runBytes + size_t(op.dataBytes));
    uint8_t* header = payload.data();
    util::writeLittleEndian(header, uint32_t(op.origin), 4);
    util::writeLittleEndian(header + 4, uint32_t(op.target), 4);
    util::writeLittleEndian(header + 8, op.window, 8);
    util::writeLittleEndian(header + 16, op.id, 8);
    header[24] = uint8_t(op.kind);
    header[25] = uint8_t(op.element);
    util::writeLittleEndian(header + 28, uint32_t(op.op), 4);
    util::writeLittleEndian(header + 32, uint32_t(op.runs.size()), 4);
    uint8_t* run = header + transport::kMpiRmaHeaderBytes;
    for (const mpi::TypeSegment& segment : op.runs) {
      util::writeLittleEndian(run, uint64_t(segment.offset), 8);
      util::writeLittleEndian(run + 8, uint64_t(segment.length), 8);
      run += transport::kMpiRmaRunBytes;
    }
    pack(run);
    ++framesSent_;
    peerOf(op.target)->send(transport::FrameType::MpiRma, std::move(payload));
  }

  void rmaDone(int origin, uint64_t id, const uint8_t* data, int64_t bytes) {
    std::vector<uint8_t> payload(transport::kMpiRmaDoneHeaderBytes + size_t(bytes));
    util::writeLittleEndian(payload.data(), uint32_t(origin), 4);
    util::writeLittleEndian(payload.data() + 4, id, 8);
    if (bytes) std::memcpy(payload.data() + transport::kMpiRmaDoneHeaderBytes, data, size_t(bytes));
    ++framesSent_;
    peerOf(origin)->send(transport::FrameType::MpiRmaDone, std::move(payload));
  }

  void abortJob(int status) {
    std::vector<uint8_t> payload(transport::kMpiAbortBytes);
    util::writeLittleEndian(payload.data(), uint32_t(status), 4);
    for (const std::shared_ptr<transport::Connection>& peer : peers_)
      if (peer) peer->send(transport::FrameType::MpiAbort, payload);
  }

  // Compares this part's state with the others' (MpiPeerLink.h).
  std::optional<std::string> checkJobDeadlock(int stableTicks) {
    std::optional<PartState> fresh = currentState();
    if (!fresh) return std::nullopt;
    std::vector<uint8_t> changed;
    std::optional<std::string> report;
    bool askOthers = false;
    uint64_t round = 0;
    {
      std::lock_guard<std::mutex> guard(stateMutex_);
      PartState& own = partStates_[part_.partIndex];
      if (!own.known || !sameState(own, *fresh)) {
        fresh->version = own.version + 1;
        own = std::move(*fresh);
        changed = encodeState(own);
      }
      report = jobDeadlockReport(stableTicks, askOthers);
      round = checkRound_;
    }
    if (!changed.empty()) sendState(changed);
    if (askOthers) askToConfirm(round);
    return report;
  }

  void leave() {
    watchingPeers_ = false;
    // The other parts learn that these ranks are done, and with how many
    // frames sent and received, before the connections go. From here on
    // nothing reaches the World and no clear-to-send is answered, so the
    // final state follows the last data this part sends
    // (World::remoteHostEnded()) and its counts stay true; until it is
    // queued, a state check finds this part's state changed.
    {
      std::vector<uint8_t> final;
      {
        std::lock_guard<std::mutex> guard(stateMutex_);
        {
          std::lock_guard<std::mutex> worldGuard(worldMutex_);
          world_ = nullptr;
        }
        PartState& own = partStates_[part_.partIndex];
        own = PartState{true, true, true, own.version + 1, framesSent_.load(),
                        framesReceived_.load(),
                        {}};
        for (uint32_t rank : routes().ranksOf(part_.partIndex))
          own.waits.emplace_back(rank, "finished");
        own.left = true;
        final = encodeState(own);
      }
      sendState(final);
    }
    // Frames still queued at the limit may lend ranks' memory, which goes
    // after this: the transport lets go of it first.
    if (!transport_->flush(kFlushLimit)) transport_->closeConnections();
  }

  int hostOf(int worldRank) const { return int(routes().partOf(uint32_t(worldRank))); }

  uint64_t eagerCreditShortfalls() const { return credit_.shortfalls(); }
  uint64_t eagerCreditFramesSent() const {
    return creditFramesSent_.load(std::memory_order_relaxed);
  }

 private:
  // The dropped part connection the transport just logged on this thread
  // (onTransportLog), for the onPeerClosed() call that follows.
  static std::string& droppedPartLine() {
    thread_local std::string line;
    return line;
  }

  // Whether `line` tells of the drop of a connection to another part.
  bool namesPartConnection(const std::string& line) {
    if (line.rfind("dropped connection ", 0) != 0) return false;
    std::lock_guard<std::mutex> guard(mutex_);
    for (const std::shared_ptr<transport::Connection>& peer : peers_)
      if (peer && line.find(" " + peer->peerName() + ": ") != std::string::npos) return true;
    return false;
  }

  bool isLocal(uint64_t rank) const { return routes().holds(part_.partIndex, rank); }
  // The connection to the part that runs `worldRank`, another part's rank.
  const std::shared_ptr<transport::Connection>& peerOf(int worldRank) const {
    return peers_[routes().partOf(uint32_t(worldRank))];
  }

  static void appendParts(std::vector<transport::LentFrame>& frames, const uint8_t* data,
                          uint64_t bytes) {
    for (uint64_t offset = 0; offset < bytes; offset += transport::kMaxFramePayloadBytes)
      frames.push_back({transport::FrameType::MpiMessagePart, {},
                        {{data + offset, std::min(transport::kMaxFramePayloadBytes, bytes - offset)}}});
  }

  static void putMessageHeader(uint8_t* header, const mpi::RemoteMessage& message) {
    util::writeLittleEndian(header, uint32_t(message.from), 4);
    util::writeLittleEndian(header + 4, uint32_t(message.to), 4);
    util::writeLittleEndian(header + 8, message.envelope.context, 4);
    util::writeLittleEndian(header + 12, uint32_t(message.envelope.source), 4);
    util::writeLittleEndian(header + 16, uint32_t(message.envelope.tag), 4);
    util::writeLittleEndian(header + 20, message.matchId, 8);
  }

  // What one part of the job last said about its ranks (MpiHostState).
  struct PartState {
    bool known = false;
    bool quiet = false;
    bool finished = false;
    uint64_t version = 0;
    uint64_t sent = 0;
    uint64_t received = 0;
    // While quiet: what each rank of the part waits in, by rank number, in
    // increasing rank order. The lines carry their ranks, so that a part
    // checks another's lines without its own rank -> part table, which a
    // route switch may have changed since the other part sent them.
    std::vector<std::pair<uint32_t, std::string>> waits;
    // This part's own only: World::hostQuietState's progress count.
    uint64_t progress = 0;
    // Its final state, sent by leave(): no rendezvous data follows it.
    bool left = false;
  };

  static bool sameState(const PartState& a, const PartState& b) {
    return a.quiet == b.quiet && a.finished == b.finished && a.sent == b.sent &&
           a.received == b.received && a.progress == b.progress && a.waits == b.waits;
  }

  // This part's state now, version unset; nullopt once it has left. The
  // frame counts are read before the ranks' state: a frame received after
  // that read is not counted yet, so it shows as in flight, and a frame
  // the ranks sent after it changes the next state's counts, whatever the
  // ranks looked like in between.
  std::optional<PartState> currentState() {
    PartState state;
    state.known = true;
    state.sent = framesSent_.load();
    state.received = framesReceived_.load();
    mpi::HostQuietState local;
    {
      std::lock_guard<std::mutex> guard(worldMutex_);
      if (!world_) return std::nullopt;
      local = world_->hostQuietState();
    }
    state.quiet = local.quiet;
    state.finished = local.finished;
    state.progress = local.progress;
    for (auto& entry : local.waits) state.waits.emplace_back(uint32_t(entry.first), std::move(entry.second));
    return state;
  }

  // The report, when every part has been quiet with the same state versions
  // for `stableTicks` checks, every frame sent between parts has been
  // received, and every other unfinished part has since confirmed that its
  // state is still the one it last sent; only the first part with ranks
  // still running gives it, so that the job reports once. A part's state
  // changes (and its version grows) whenever its ranks make progress or it
  // sends or receives a frame, so unchanged versions mean that nothing
  // happened in between; the confirmations make that hold up to now even
  // when a part's watchdog has not run for a while (a loaded host), so that
  // its last state is old. Sets `askOthers` when a confirming round starts.
  // Caller holds stateMutex_.
  std::optional<std::string> jobDeadlockReport(int stableTicks, bool& askOthers) {
    bool allQuiet = true;
    uint64_t sent = 0, received = 0;
    std::vector<uint64_t> versions;
    for (const PartState& state : partStates_) {
      allQuiet = allQuiet && state.known && state.quiet;
      sent += state.sent;
      received += state.received;
      versions.push_back(state.version);
    }
    if (!allQuiet || sent != received || versions != watchedVersions_) {
      watchedVersions_ = std::move(versions);
      quietTicks_ = 0;
      roundOpen_ = false;
      return std::nullopt;
    }
    if (quietTicks_ < stableTicks) ++quietTicks_;
    if (quietTicks_ < stableTicks) return std::nullopt;
    uint32_t reporter = 0;
    while (reporter < partStates_.size() && partStates_[reporter].finished) ++reporter;
    if (reporter != part_.partIndex) return std::nullopt;
    if (!roundOpen_) {
      ++checkRound_;
      roundOpen_ = true;
      confirmed_.assign(partStates_.size(), false);
      for (size_t p = 0; p < partStates_.size(); ++p)
        if (p == part_.partIndex || partStates_[p].finished) confirmed_[p] = true;
      askOthers = std::find(confirmed_.begin(), confirmed_.end(), false) != confirmed_.end();
      if (askOthers) return std::nullopt;
    }
    if (std::find(confirmed_.begin(), confirmed_.end(), false) != confirmed_.end())
      return std::nullopt;
    std::vector<std::pair<uint32_t, std::string>> waits;
    for (const PartState& state : partStates_)
      waits.insert(waits.end(), state.waits.begin(), state.waits.end());
    std::stable_sort(waits.begin(), waits.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string report = mpi::kDeadlockReportHeading;
    for (const auto& [rank, wait] : waits) report += "\n  rank " + std::to_string(rank) + ": " + wait;
    return report;
  }

  // Sends MpiStateCheck for `round` to every part that has not finished.
  void askToConfirm(uint64_t round) {
    std::vector<uint8_t> payload(transport::kMpiStateCheckBytes);
    util::writeLittleEndian(payload.data(), round, 8);
    std::vector<uint32_t> asked;
    {
      std::lock_guard<std::mutex> guard(stateMutex_);
      for (uint32_t p = 0; p < confirmed_.size(); ++p)
        if (!confirmed_[p]) asked.push_back(p);
    }
    for (uint32_t p : asked)
      if (peers_[p]) peers_[p]->send(transport::FrameType::MpiStateCheck, payload);
  }

  // A MpiStateCheck from `part`: answers on the I/O thread, which never
  // waits, with whether this part's state is still its last MpiHostState's.
  // A change is left to the watchdog's next check to send, so that states
  // go out from one thread, in version order.
  bool onStateCheck(uint32_t part, const std::vector<uint8_t>& payload, std::string& reason) {
    if (payload.size() != transport::kMpiStateCheckBytes) {
      reason = "MpiStateCheck of the wrong size";
      return false;
    }
    std::optional<PartState> fresh = currentState();
    std::vector<uint8_t> answer(transport::kMpiStateConfirmBytes);
    std::memcpy(answer.data(), payload.data(), 8);
    {
      std::lock_guard<std::mutex> guard(stateMutex_);
      // Only a version already on its way to `part` (queued ahead of this
      // answer) is confirmed. A part that has left keeps the final state
      // it sent.
      const PartState& own = partStates_[part_.partIndex];
      util::writeLittleEndian(answer.data() + 8, sentVersion_, 8);
      answer[16] = uint8_t(own.known && own.version == sentVersion_ &&
                           (!fresh || sameState(own, *fresh)));
    }
    peers_[part]->send(transport::FrameType::MpiStateConfirm, std::move(answer));
    return true;
  }

  // A MpiStateConfirm from `part`, for the round this part opened.
  bool onStateConfirm(uint32_t part, const std::vector<uint8_t>& payload, std::string& reason) {
    if (payload.size() != transport::kMpiStateConfirmBytes || payload[16] > 1 ||
        util::readLittleEndian(payload.data() + 17, 7) != 0) {
      reason = "MpiStateConfirm of the wrong size or with unknown flags";
      return false;
    }
    uint64_t round = util::readLittleEndian(payload.data(), 8);
    uint64_t version = util::readLittleEndian(payload.data() + 8, 8);
    std::lock_guard<std::mutex> guard(stateMutex_);
    if (round > checkRound_ || version > partStates_[part].version) {
      reason = "MpiStateConfirm for round " + std::to_string(round) + " and state version " +
               std::to_string(version) + ", which this part never asked about or saw";
      return false;
    }
    // An answer to a round given up since is old news.
    if (round != checkRound_ || !roundOpen_) return true;
    if (payload[16] == 1 && version == partStates_[part].version) {
      confirmed_[part] = true;
    } else {
      roundOpen_ = false;
      quietTicks_ = 0;
    }
    return true;
  }

  // The MpiHostState frame of this part's `state`. A wait line longer than
  // a frame allows is cut, and a byte that is not printable ASCII (from a
  // communicator's name) becomes '?'. Caller holds stateMutex_.
  std::vector<uint8_t> encodeState(const PartState& state) const {
    std::vector<uint8_t> payload(transport::kMpiHostStateHeaderBytes);
    util::writeLittleEndian(payload.data(), part_.partIndex, 4);
    payload[4] = uint8_t((state.quiet ? kStateQuiet : 0) | (state.finished ? kStateFinished : 0) |
                         (state.left ? kStateLeft : 0));
    util::writeLittleEndian(payload.data() + 8, state.version, 8);
    util::writeLittleEndian(payload.data() + 16, state.sent, 8);
    util::writeLittleEndian(payload.data() + 24, state.received, 8);
    util::writeLittleEndian(payload.data() + 32, state.waits.size(), 4);
    for (size_t line = 0; line < state.waits.size(); ++line) {
      const std::string& wait = state.waits[line].second;
      size_t length = std::min<size_t>(wait.size(), transport::kMaxMpiWaitLineBytes);
      size_t at = payload.size();
      payload.resize(at + transport::kMpiHostStateLineHeaderBytes + length);
      util::writeLittleEndian(payload.data() + at, state.waits[line].first, 4);
      util::writeLittleEndian(payload.data() + at + 4, length, 4);
      for (size_t i = 0; i < length; ++i) {
        char c = wait[i];
        payload[at + transport::kMpiHostStateLineHeaderBytes + i] =
            uint8_t(c >= 0x20 && c < 0x7f ? c : '?');
      }
    }
    return payload;
  }

  // Called by one thread at a time (the watchdog's, then leave()'s), in
  // version order. A part that said it has finished is leaving and needs
  // no more states: one that reached it after it stopped reading would
  // reset the connection as it closes.
  void sendState(const std::vector<uint8_t>& payload) {
    std::vector<uint32_t> running;
    {
      std::lock_guard<std::mutex> guard(stateMutex_);
      for (uint32_t p = 0; p < partStates_.size(); ++p)
        if (peers_[p] && !partStates_[p].finished) running.push_back(p);
    }
    for (uint32_t p : running) peers_[p]->send(transport::FrameType::MpiHostState, payload);
    std::lock_guard<std::mutex> guard(stateMutex_);
    sentVersion_ = util::readLittleEndian(payload.data() + 8, 8);
  }

  // A MpiHostState from `part`: checked whole before it replaces what the
  // part said last.
  bool onHostState(uint32_t part, const std::vector<uint8_t>& payload, std::string& reason) {
    if (payload.size() < transport::kMpiHostStateHeaderBytes) {
      reason = "MpiHostState shorter than its header";
      return false;
    }
    const uint8_t* header = payload.data();
    uint8_t flags = header[4];
    if (util::readLittleEndian(header, 4) != part ||
        (flags & ~(kStateQuiet | kStateFinished | kStateLeft)) != 0 ||
        ((flags & kStateLeft) && !(flags & kStateFinished)) ||
        util::readLittleEndian(header + 5, 3) != 0) {
      reason = "MpiHostState with a foreign part index or unknown flags";
      return false;
    }
    PartState state{true,
                    (flags & kStateQuiet) != 0,
                    (flags & kStateFinished) != 0,
                    util::readLittleEndian(header + 8, 8),
                    util::readLittleEndian(header + 16, 8),
                    util::readLittleEndian(header + 24, 8),
                    {}};
    uint64_t lines = util::readLittleEndian(header + 32, 4);
    uint64_t worldSize = routes().worldSize();
    // A quiet part names its waits, but for one that has finished with no
    // rank left (its last rank left it in a live move between parts).
    if (lines > std::min<uint64_t>(worldSize, transport::kMaxMpiHostStateLines) ||
        (state.quiet && lines == 0 && (!state.finished || !routes().ranksOf(part).empty()))) {
      reason = "MpiHostState with " + std::to_string(lines) + " wait lines in a job of " +
               std::to_string(worldSize) + " ranks";
      return false;
    }
    size_t at = transport::kMpiHostStateHeaderBytes;
    for (uint64_t line = 0; line < lines; ++line) {
      if (payload.size() - at < transport::kMpiHostStateLineHeaderBytes) {
        reason = "MpiHostState cut short in its wait lines";
        return false;
      }
      uint64_t rank = util::readLittleEndian(payload.data() + at, 4);
      uint64_t length = util::readLittleEndian(payload.data() + at + 4, 4);
      at += transport::kMpiHostStateLineHeaderBytes;
      bool ordered = line == 0 || rank > state.waits.back().first;
      if (rank >= worldSize || !ordered || length > transport::kMaxMpiWaitLineBytes ||
          length > payload.size() - at) {
        reason = "MpiHostState with a bad wait line for rank " + std::to_string(rank);
        return false;
      }
      const uint8_t* text = payload.data() + at;
      for (uint64_t i = 0; i < length; ++i)
        if (text[i] < 0x20 || text[i] >= 0x7f) {
          reason = "MpiHostState with an unprintable wait line";
          return false;
        }
      state.waits.emplace_back(uint32_t(rank), std::string(reinterpret_cast<const char*>(text), size_t(length)));
      at += size_t(length);
    }
    if (at != payload.size()) {
      reason = "MpiHostState with bytes after its wait lines";
      return false;
    }
    bool left = (flags & kStateLeft) != 0;
    {
      std::lock_guard<std::mutex> guard(stateMutex_);
      PartState& known = partStates_[part];
      if (known.known && state.version <= known.version) {
        reason = "MpiHostState whose version does not grow";
        return false;
      }
      known = std::move(state);
    }
    if (left) {
      leftParts_[part] = true;
      std::lock_guard<std::mutex> guard(worldMutex_);
      if (world_) world_->remoteHostEnded(int(part));
    }
    return true;
  }

  // Reads and checks the header of a message from `part`; false with
  // `reason` when its ranks are not those of the two hosts.
  bool takeMessageHeader(const uint8_t* header, uint32_t part, mpi::RemoteMessage& message,
                         std::string& reason) const {
    uint64_t sender = util::readLittleEndian(header, 4);
    uint64_t receiver = util::readLittleEndian(header + 4, 4);
    if (!routes().holds(part, sender) || !isLocal(receiver)) {
      reason = "MPI message from rank " + std::to_string(sender) + " to rank " +
               std::to_string(receiver) + ", which are not the ranks of the two hosts";
      return false;
    }
    message.from = int(sender);
    message.to = int(receiver);
    message.envelope.context = uint32_t(util::readLittleEndian(header + 8, 4));
    message.envelope.source = int(int32_t(util::readLittleEndian(header + 12, 4)));
    message.envelope.tag = int(int32_t(util::readLittleEndian(header + 16, 4)));
    message.matchId = util::readLittleEndian(header + 20, 8);
    return true;
  }

  // A MpiMessageHead from `part`: waits for its parts.
  bool onMessageHead(uint32_t part, const std::vector<uint8_t>& payload, std::string& reason) {
    Assembly& assembly = assembling_[part];
    if (payload.size() != transport::kMpiMessageHeadBytes) {
      reason = "MpiMessageHead of the wrong size";
      return false;
    }
    if (assembly.active) {
      reason = "MpiMessageHead before the previous message's data is complete";
      return false;
    }
    uint64_t bytes = util::readLittleEndian(payload.data() + transport::kMpiMessageHeaderBytes, 8);
    if (bytes <= transport::kMaxMpiMessageDataBytes || bytes > transport::kMaxMpiMessageBytes) {
      reason = "MpiMessageHead announcing " + std::to_string(bytes) + " bytes, not more than " +
               std::to_string(transport::kMaxMpiMessageDataBytes) + " and at most " +
               std::to_string(transport::kMaxMpiMessageBytes);
      return false;
    }
    if (!takeMessageHeader(payload.data(), part, assembly.message, reason)) return false;
    if (!credit_.hold(part,
                      mpi::eagerCreditCharge(int64_t(bytes), assembly.message.matchId != 0),
                      reason))
      return false;
    // Only address space (a block this large is mapped, not taken from
    // the heap): pages are touched as the parts arrive, so a sender that
    // stops early costs what it sent.
    assembly.data.reset(new (std::nothrow) uint8_t[bytes]);
    if (!assembly.data) {
      reason = "no memory for a message of " + std::to_string(bytes) + " bytes";
      return false;
    }
    assembly.message.envelope.bytes = int64_t(bytes);
    assembly.received = 0;
    assembly.active = true;
    return true;
  }

  // A MpiRequestToSend from `part`: the envelope enters the receiver's
  // Mailbox. Caller holds worldMutex_, with a live World.
  bool onRequestToSend(uint32_t part, const std::vector<uint8_t>& payload, std::string& reason) {
    if (payload.size() != transport::kMpiRequestToSendBytes) {
      reason = "MpiRequestToSend of the wrong size";
      return false;
    }
    mpi::RemoteMessage message;
    if (!takeMessageHeader(payload.data(), part, message, reason)) return false;
    uint64_t bytes = util::readLittleEndian(payload.data() + transport::kMpiMessageHeaderBytes, 8);
    if (bytes == 0 || bytes > transport::kMaxMpiMessageBytes || message.matchId == 0) {
      reason = "MpiRequestToSend announcing " + std::to_string(bytes) + " bytes (1 to " +
               std::to_string(transport::kMaxMpiMessageBytes) + ") under send id " +
               std::to_string(message.matchId) + " (not 0)";
      return false;
    }
    message.envelope.bytes = int64_t(bytes);
    world_->deliverRequestToSend(message);
    return true;
  }

  // A MpiClearToSend from `part`, for a rendezvous send of this part to a
  // rank of that one. Caller holds worldMutex_, with a live World.
  bool onClearToSend(uint32_t part, const std::vector<uint8_t>& payload, std::string& reason) {
    if (payload.size() != transport::kMpiClearToSendBytes) {
      reason = "MpiClearToSend of the wrong size";
      return false;
    }
    uint64_t sender = util::readLittleEndian(payload.data(), 4);
    uint64_t receiver = util::readLittleEndian(payload.data() + 4, 4);
    if (!isLocal(sender) || !routes().holds(part, receiver)) {
      reason = "MpiClearToSend from rank " + std::to_string(receiver) + " to rank " +
               std::to_string(sender) + ", which are not the ranks of the two hosts";
      return false;
    }
    return world_->remoteClearToSend(int(sender), util::readLittleEndian(payload.data() + 8, 8),
                                     int(receiver), util::readLittleEndian(payload.data() + 16, 8),
                                     reason);
  }

  // A MpiRendezvousData from `part`: its MpiMessagePart frames go where
  // the waiting receive wants them. Caller holds worldMutex_, with a live
  // World.
  bool onRendezvousData(uint32_t part, const std::vector<uint8_t>& payload,
                        std::string& reason) {
    if (payload.size() != transport::kMpiRendezvousDataBytes ||
        util::readLittleEndian(payload.data() + 4, 4) != 0) {
      reason = "MpiRendezvousData of the wrong size or with a nonzero reserved field";
      return false;
    }
    uint64_t receiver = util::readLittleEndian(payload.data(), 4);
    uint64_t receiveId = util::readLittleEndian(payload.data() + 8, 8);
    uint64_t bytes = util::readLittleEndian(payload.data() + 16, 8);
    if (!isLocal(receiver) || receiveId == 0 || bytes == 0 ||
        bytes > transport::kMaxMpiMessageBytes) {
      reason = "MpiRendezvousData of " + std::to_string(bytes) + " bytes for receive " +
               std::to_string(receiveId) + " of rank " + std::to_string(receiver) +
               ", not a waiting receive of this host";
      return false;
    }
    uint8_t* target =
        world_->remoteRendezvousTarget(int(part), int(receiver), receiveId, int64_t(bytes), reason);
    if (!target) return false;
    Assembly& assembly = assembling_[part];
    assembly.message = mpi::RemoteMessage{};
    assembly.message.envelope.bytes = int64_t(bytes);
    assembly.receiveId = receiveId;
    assembly.target = target;
    assembly.received = 0;
    assembly.active = true;
    return true;
  }

  // The part of the job that `from` connects to, once it has introduced
  // itself.
  std::optional<uint32_t> partOf(const transport::Connection& from) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = partOfConnection_.find(&from);
    if (it == partOfConnection_.end()) return std::nullopt;
    return it->second;
  }

  // The transport reads a well-formed MpiMessage into a buffer of its own,
  // which the World keeps as the message's data, and each MpiMessagePart
  // straight into its place in the message it continues. Anything else,
  // malformed ones too, comes to onFrame() as an ordinary frame.
  uint8_t* placePayload(const transport::Connection& from, transport::FrameType type,
                        uint64_t bytes) {
    std::optional<uint32_t> part = partOf(from);
    if (!part) return nullptr;
    if (RankSectionTransfer::carries(type)) return sections_.placePayload(*part, type, bytes);
    Assembly& assembly = assembling_[*part];
    if (type == transport::FrameType::MpiMessage && !assembly.active &&
        bytes >= transport::kMpiMessageHeaderBytes) {
      assembly.frame.reset(new uint8_t[bytes]);
      return assembly.frame.get();
    }
    if (type == transport::FrameType::MpiMessagePart && assembly.active &&
        bytes <= uint64_t(assembly.message.envelope.bytes) - assembly.received)
      return (assembly.receiveId ? assembly.target : assembly.data.get()) + assembly.received;
    return nullptr;
  }

  // A frame placePayload() placed has arrived whole: an MpiMessage is
  // delivered, a MpiMessagePart with its message's last bytes delivers
  // the message. Each counts as one frame received, as onFrame() counts
  // the others: the deadlock report weighs them against the frames the
  // other parts sent.
  bool onPlacedFrame(const transport::Connection& from, transport::FrameType type,
                     uint64_t bytes, std::string& reason) {
    uint32_t part = *partOf(from);
    if (RankSectionTransfer::carries(type)) {
      sections_.placedFrameArrived(part, type, bytes);
      return true;
    }
    Assembly& assembly = assembling_[part];
    std::lock_guard<std::mutex> guard(worldMutex_);
    if (type == transport::FrameType::MpiMessage) {
      std::unique_ptr<uint8_t[]> frame = std::move(assembly.frame);
      mpi::RemoteMessage message;
      if (!takeMessageHeader(frame.get(), part, message, reason)) return false;
      message.envelope.bytes = int64_t(bytes - transport::kMpiMessageHeaderBytes);
      if (!credit_.hold(part,
                        mpi::eagerCreditCharge(message.envelope.bytes, message.matchId != 0),
                        reason))
        return false;
      if (world_) {
        world_->deliverRemote(message, std::move(frame), transport::kMpiMessageHeaderBytes);
        ++framesReceived_;
      }
      return true;
    }
    if (world_) ++framesReceived_;
    assembly.received += bytes;
    if (assembly.received < uint64_t(assembly.message.envelope.bytes)) return true;
    assembly.active = false;
    if (uint64_t receiveId = std::exchange(assembly.receiveId, 0)) {
      if (world_) world_->remoteRendezvousLanded(receiveId);
      return true;
    }
    std::unique_ptr<uint8_t[]> data = std::move(assembly.data);
    if (world_) world_->deliverRemote(assembly.message, std::move(data), 0);
    return true;
  }

  // A MpiMessagePart that placePayload() did not place: it does not fit
  // the message it would continue, or there is none.
  std::string refusePart(uint32_t part, uint64_t bytes) {
    const Assembly& assembly = assembling_[part];
    if (!assembly.active) return "MpiMessagePart without a MpiMessageHead";
    return "MpiMessagePart of " + std::to_string(bytes) + " bytes where " +
           std::to_string(uint64_t(assembly.message.envelope.bytes) - assembly.received) +
           " are missing";
  }

  bool onFrame(transport::Connection& from, transport::Frame&& frame, std::string& reason) {
    uint32_t part;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      auto it = partOfConnection_.find(&from);
      if (it == partOfConnection_.end()) {
        if (frame.type != transport::FrameType::MpiHello) {
          reason = "MPI frame before MpiHello";
          return false;
        }
        return onHello(from, frame, reason);
      }
      part = it->second;
    }
    std::vector<uint8_t>& payload = frame.payload;
    if (RankSectionTransfer::carries(frame.type)) {
      sections_.onFrame(part, frame.type, payload);
      return true;
    }
    if ((frame.type >= transport::FrameType::CheckpointVote &&
         frame.type <= transport::FrameType::CheckpointWritten) ||
        frame.type == transport::FrameType::CheckpointPartData ||
        frame.type == transport::FrameType::CheckpointCopy ||
        frame.type == transport::FrameType::MigrationStop ||
        frame.type == transport::FrameType::MigrationOutcome ||
        frame.type == transport::FrameType::RankOutputTails) {
      CheckpointFrames handler;
      {
        std::lock_guard<std::mutex> guard(mutex_);
        handler = checkpointFrames_;
      }
      if (handler) return handler(part, frame.type, payload, reason);
      reason = std::string(transport::frameTypeName(frame.type)) + " in a job that does not checkpoint";
      return false;
    }
    if (frame.type == transport::FrameType::RouteSwitch) return onRouteSwitch(part, payload);
    if (frame.type == transport::FrameType::RouteSwitchAnswer)
      return onRouteSwitchAnswer(part, payload);
    if (frame.type == transport::FrameType::MpiHostState)
      return onHostState(part, payload, reason);
    if (frame.type == transport::FrameType::MpiStateCheck)
      return onStateCheck(part, payload, reason);
    if (frame.type == transport::FrameType::MpiStateConfirm)
      return onStateConfirm(part, payload, reason);
    if (frame.type == transport::FrameType::MpiEagerGrant ||
        frame.type == transport::FrameType::MpiEagerCredit)
      return onCredit(part, frame, reason);
    std::lock_guard<std::mutex> guard(worldMutex_);
    if (!world_) return true;
    bool accepted = deliverFrame(part, frame, reason);
    if (accepted && frame.type != transport::FrameType::MpiAbort) ++framesReceived_;
    return accepted;
  }

  // A frame from `part` other than MpiHello and MpiHostState. Caller holds
  // worldMutex_, with a live World.
  bool deliverFrame(uint32_t part, transport::Frame& frame, std::string& reason) {
    std::vector<uint8_t>& payload = frame.payload;
    if (assembling_[part].active && frame.type != transport::FrameType::MpiMessagePart) {
      reason = std::string(transport::frameTypeName(frame.type)) +
               " inside the data of a message split over frames";
      return false;
    }
    switch (frame.type) {
      // What placePayload() left to onFrame().
      case transport::FrameType::MpiMessage:
        reason = "MpiMessage shorter than its header";
        return false;
      case transport::FrameType::MpiMessagePart:
        reason = refusePart(part, payload.size());
        return false;
      case transport::FrameType::MpiMessageHead:
        return onMessageHead(part, payload, reason);
      case transport::FrameType::MpiRequestToSend:
        return onRequestToSend(part, payload, reason);
      case transport::FrameType::MpiClearToSend:
        return onClearToSend(part, payload, reason);
      case transport::FrameType::MpiRendezvousData:
        return onRendezvousData(part, payload, reason);
      case transport::FrameType::MpiMatched: {
        if (payload.size() != transport::kMpiMatchedBytes &&
            payload.size() != transport::kMpiMatchedWithCreditBytes) {
          reason = "MpiMatched of the wrong size";
          return false;
        }
        uint64_t sender = util::readLittleEndian(payload.data(), 4);
        if (!isLocal(sender) ||
            !world_->remoteSendMatched(util::readLittleEndian(payload.data() + 4, 8))) {
          reason = "MpiMatched for no synchronous send of rank " + std::to_string(sender);
          return false;
        }
        if (payload.size() == transport::kMpiMatchedWithCreditBytes) {
          uint64_t credit =
              util::readLittleEndian(payload.data() + transport::kMpiMatchedBytes, 8);
          if (!credit_.returned(part, credit, reason)) {
            reason = "MpiMatched with credit: " + reason;
            return false;
          }
        }
        return true;
      }
      case transport::FrameType::MpiRma:
        return onRma(part, payload, reason);
      case transport::FrameType::MpiRmaDone: {
        if (payload.size() < transport::kMpiRmaDoneHeaderBytes) {
          reason = "MpiRmaDone shorter than its header";
          return false;
        }
        uint64_t origin = util::readLittleEndian(payload.data(), 4);
        if (!isLocal(origin)) {
          reason = "MpiRmaDone for rank " + std::to_string(origin) + ", not a rank of this host";
          return false;
        }
        return world_->remoteRmaDone(int(origin), util::readLittleEndian(payload.data() + 4, 8),
                                     payload.data() + transport::kMpiRmaDoneHeaderBytes,
                                     int64_t(payload.size() - transport::kMpiRmaDoneHeaderBytes),
                                     reason);
      }
      case transport::FrameType::MpiAbort: {
        if (payload.size() != transport::kMpiAbortBytes) {
          reason = "MpiAbort of the wrong size";
          return false;
        }
        uint64_t status = util::readLittleEndian(payload.data(), 4);
        if (status == 0 || status > 255) {
          reason = "MpiAbort with exit status " + std::to_string(status) + ", not 1 to 255";
          return false;
        }
        world_->abortByOtherHost(int(status));
        return true;
      }
      default:
        reason = std::string("unexpected ") + transport::frameTypeName(frame.type) +
                 " between the hosts of a job";
        return false;
    }
  }

  // Caller holds worldMutex_, with a live World.
  bool onRma(uint32_t part, const std::vector<uint8_t>& payload, std::string& reason) {
    if (payload.size() < transport::kMpiRmaHeaderBytes) {
      reason = "MpiRma shorter than its header";
      return false;
    }
    const uint8_t* header = payload.data();
    mpi::RemoteRmaOp op;
    uint64_t origin = util::readLittleEndian(header, 4);
    uint64_t target = util::readLittleEndian(header + 4, 4);
    if (!routes().holds(part, origin) || !isLocal(target)) {
      reason = "MpiRma from rank " + std::to_string(origin) + " to rank " +
               std::to_string(target) + ", which are not the ranks of the two hosts";
      return false;
    }
    op.origin = int(origin);
    op.target = int(target);
    op.window = util::readLittleEndian(header + 8, 8);
    op.id = util::readLittleEndian(header + 16, 8);
    uint8_t kind = header[24];
    if (kind < uint8_t(mpi::RmaKind::Put) || kind > uint8_t(mpi::RmaKind::AccessCompletion) ||
        util::readLittleEndian(header + 26, 2) != 0) {
      reason = "MpiRma of unknown kind " + std::to_string(kind);
      return false;
    }
    op.kind = mpi::RmaKind(kind);
    op.element = mpi::ElementKind(header[25]);
    op.op = int(int32_t(util::readLittleEndian(header + 28, 4)));
    uint64_t runs = util::readLittleEndian(header + 32, 4);
    uint64_t rest = payload.size() - transport::kMpiRmaHeaderBytes;
    if (runs > rest / transport::kMpiRmaRunBytes) {
      reason = "MpiRma with more runs than its frame holds";
      return false;
    }
    const uint8_t* run = header + transport::kMpiRmaHeaderBytes;
    op.runs.reserve(size_t(runs));
    for (uint64_t i = 0; i < runs; ++i, run += transport::kMpiRmaRunBytes)
      op.runs.push_back(
          {int64_t(util::readLittleEndian(run, 8)), int64_t(util::readLittleEndian(run + 8, 8))});
    op.dataBytes = int64_t(rest - runs * transport::kMpiRmaRunBytes);
    return world_->applyRemoteRma(op, run, reason);
  }

  // Caller holds mutex_.
  bool onHello(transport::Connection& from, const transport::Frame& frame, std::string& reason) {
    if (frame.payload.size() != transport::kMpiHelloBytes) {
      reason = "MpiHello of the wrong size";
      return false;
    }
    uint64_t jobId = util::readLittleEndian(frame.payload.data(), 8);
    uint64_t part = util::readLittleEndian(frame.payload.data() + 8, 4);
    if (jobId != part_.jobId || part >= part_.partIndex || peers_[part]) {
      reason = "MpiHello from job " + std::to_string(jobId) + " part " + std::to_string(part) +
               ", which this part does not wait for";
      return false;
    }
    partOfConnection_[&from] = uint32_t(part);
    peers_[part] = from.shared_from_this();
    sendGrant(from);
    introduced_.notify_all();
    return true;
  }

  void sendGrant(transport::Connection& to) {
    std::vector<uint8_t> payload(transport::kMpiEagerCreditBytes);
    util::writeLittleEndian(payload.data(), uint64_t(credit_.grant()), 8);
    to.send(transport::FrameType::MpiEagerGrant, std::move(payload));
  }

  // A MpiEagerGrant or MpiEagerCredit from `part`. Neither counts as an MPI
  // frame for the deadlock check: no rank ever waits for credit.
  bool onCredit(uint32_t part, const transport::Frame& frame, std::string& reason) {
    if (frame.payload.size() != transport::kMpiEagerCreditBytes) {
      reason = std::string(transport::frameTypeName(frame.type)) + " of the wrong size";
      return false;
    }
    uint64_t bytes = util::readLittleEndian(frame.payload.data(), 8);
    if (frame.type == transport::FrameType::MpiEagerCredit)
      return credit_.returned(part, bytes, reason);
    std::lock_guard<std::mutex> guard(mutex_);
    if (!credit_.granted(part, bytes, reason)) return false;
    introduced_.notify_all();
    return true;
  }

 public:
  // The route switch (RouteSwitch.h). Installs `partOfRank` as this part's
  // table, in the link and in the World's remote flags.
  void installRoutes(const std::vector<uint32_t>& partOfRank) {
    std::vector<bool> remote(partOfRank.size());
    for (size_t rank = 0; rank < partOfRank.size(); ++rank)
      remote[rank] = partOfRank[rank] != part_.partIndex;
    {
      std::lock_guard<std::mutex> guard(routeMutex_);
      routeTables_.push_back(
          std::make_unique<const RankRoutes>(partOfRank, uint32_t(part_.partRanks.size())));
      routes_.store(routeTables_.back().get(), std::memory_order_release);
    }
    std::lock_guard<std::mutex> guard(worldMutex_);
    if (world_) world_->switchRemoteRanks(std::move(remote));
  }

  void setRouteGate(std::function<std::string(uint64_t)> gate,
                    std::function<std::string(uint64_t)> refusal) {
    std::lock_guard<std::mutex> guard(routeMutex_);
    routeGate_ = std::move(gate);
    routeRefusal_ = std::move(refusal);
  }

  void setRouteMoveAllowance(std::function<bool(uint64_t, uint32_t)> allowed) {
    std::lock_guard<std::mutex> guard(routeMutex_);
    routeMoveAllowed_ = std::move(allowed);
  }

  static void noteDropped(const char* type, uint32_t part, const std::string& why) {
    std::fprintf(stderr, "synergy-run: note: %s from part %u dropped (%s)\n", type, part,
                 why.c_str());
  }

  // Why `table` cannot replace the one in force as part 0 sends it; empty
  // when it can. `inFlight`: why a message or eager credit may still be on
  // its way between the parts (empty: nothing is), which only a table that
  // moves a rank must not have.
  std::string checkTable(const std::vector<uint32_t>& table, const std::string& inFlight) const {
    const RankRoutes& now = routes();
    if (table.size() != now.worldSize())
      return "the table has " + std::to_string(table.size()) + " ranks, the job " +
             std::to_string(now.worldSize());
    for (size_t rank = 0; rank < table.size(); ++rank) {
      if (table[rank] >= now.partCount())
        return "rank " + std::to_string(rank) + " has no part (" + std::to_string(table[rank]) +
               " of " + std::to_string(now.partCount()) + ")";
      if (table[rank] != 0 && partClosed(table[rank]))
        return "rank " + std::to_string(rank) + " goes to part " + std::to_string(table[rank]) +
               ", which has left the job";
    }
    for (size_t rank = 0; rank < table.size(); ++rank)
      if (table[rank] != now.partOf(uint32_t(rank)) && !inFlight.empty())
        return "rank " + std::to_string(rank) + " moves while " + inFlight;
    return {};
  }

  // Part 0: sends `frame` to every other part and waits for their answers
  // (at most kRouteAnswerLimit; a part that leaves or an abort ends the
  // wait); the first refusal or missing answer in `why`, empty when all
  // took it.
  void askParts(const RouteSwitchFrame& frame, std::string& why) {
    constexpr auto kRouteAnswerLimit = std::chrono::seconds(60);
    uint32_t parts = uint32_t(part_.partRanks.size());
    {
      std::lock_guard<std::mutex> guard(routeMutex_);
      pendingMove_ = frame.moveId;
      pendingKind_ = frame.kind;
      routeAnswers_.assign(parts, std::nullopt);
    }
    std::vector<uint8_t> payload = encodeRouteSwitch(frame);
    for (uint32_t p = 1; p < parts; ++p) sendToPart(p, transport::FrameType::RouteSwitch, payload);
    auto deadline = std::chrono::steady_clock::now() + kRouteAnswerLimit;
    std::unique_lock<std::mutex> lock(routeMutex_);
    for (;;) {
      why.clear();
      bool all = true;
      for (uint32_t p = 1; p < parts && why.empty(); ++p) {
        if (routeAnswers_[p]) {
          if (!routeAnswers_[p]->accepted) why = "part " + std::to_string(p) + " refused: " + routeAnswers_[p]->why;
        } else if (partClosed(p) && leftParts_[p] &&
                   std::find(frame.partOfRank.begin(), frame.partOfRank.end(), p) ==
                       frame.partOfRank.end()) {
          // It left the job when a live move took its last rank, and holds
          // no rank in this table either: it needs no table any more (a
          // move of several ranks can empty one part before a later step).
        } else if (partClosed(p)) {
          why = "part " + std::to_string(p) + " left the job";
        } else {
          all = false;
        }
      }
      if (!why.empty() || all) break;
      bool aborted;
      {
        std::lock_guard<std::mutex> guard(worldMutex_);
        aborted = !world_ || world_->aborted();
      }
      if (aborted) {
        why = "the job aborted";
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        why = "a part did not answer within 60 s";
        break;
      }
      routeAnswered_.wait_for(lock, std::chrono::milliseconds(100));
    }
    pendingMove_ = 0;
  }

  bool switchRoutes(uint64_t moveId, uint64_t round, const std::vector<uint32_t>& partOfRank,
                    const std::string& inFlight, std::string& why) {
    if (part_.partIndex != 0) {
      why = "only part 0 switches routes";
      return false;
    }
    if (moveId == 0 || round == 0) {
      why = "move id and control point must be nonzero";
      return false;
    }
    why = checkTable(partOfRank, inFlight);
    if (!why.empty()) {
      why = "part 0 refused: " + why;
      return false;
    }
    std::vector<uint32_t> old = routes().partOfRanks();
    installRoutes(partOfRank);
    RouteSwitchFrame frame{moveId, round, RouteSwitchFrame::kSwitch,
                           uint32_t(part_.partRanks.size()), partOfRank};
    askParts(frame, why);
    if (why.empty()) return true;
    // Every part back to the old table, those that refused or did not
    // answer too (a rollback to the table a part holds changes nothing).
    installRoutes(old);
    frame.kind = RouteSwitchFrame::kRollback;
    frame.partOfRank = std::move(old);
    std::string rollback;
    askParts(frame, rollback);
    if (!rollback.empty()) why += "; the rollback: " + rollback;
    return false;
  }

  // A RouteSwitch from `part`: taken only from part 0, well formed, while
  // this part is held at the control point it names. Anything else is
  // dropped with a note and the connection stays.
  bool onRouteSwitch(uint32_t part, const std::vector<uint8_t>& payload) {
    if (part != 0 || part_.partIndex == 0) {
      noteDropped("RouteSwitch", part, "only part 0 switches routes, and only those of others");
      return true;
    }
    std::string error;
    std::optional<RouteSwitchFrame> frame =
        decodeRouteSwitch(payload, routes().worldSize(), routes().partCount(), error);
    if (!frame) {
      noteDropped("RouteSwitch", part, error);
      return true;
    }
    std::function<std::string(uint64_t)> gate, refusal;
    std::function<bool(uint64_t, uint32_t)> moveAllowed;
    {
      std::lock_guard<std::mutex> guard(routeMutex_);
      gate = routeGate_;
      refusal = routeRefusal_;
      moveAllowed = routeMoveAllowed_;
    }
    std::string notHeld = gate ? gate(frame->round) : "this job does not checkpoint";
    if (!notHeld.empty()) {
      noteDropped("RouteSwitch", part,
                  "control point " + std::to_string(frame->round) + ": " + notHeld);
      return true;
    }
    RouteSwitchAnswer answer{frame->moveId, frame->kind, false, {}};
    const RankRoutes& now = routes();
    if (frame->kind == RouteSwitchFrame::kSwitch) {
      if (refusal) answer.why = refusal(frame->round);
      for (size_t rank = 0; rank < frame->partOfRank.size() && answer.why.empty(); ++rank)
        if ((frame->partOfRank[rank] == part_.partIndex) != now.holds(part_.partIndex, rank) &&
            !(moveAllowed && moveAllowed(frame->round, uint32_t(rank))))
          answer.why = "rank " + std::to_string(rank) + " would move " +
                       (now.holds(part_.partIndex, rank) ? "away from" : "to") +
                       " this part, and no rank has been shipped";
    } else if (frame->moveId != lastSwitch_) {
      answer.why = "no switch " + std::to_string(frame->moveId) + " to roll back";
    }
    if (answer.why.empty()) {
      installRoutes(frame->partOfRank);
      answer.accepted = true;
    }
    if (frame->kind == RouteSwitchFrame::kSwitch) lastSwitch_ = frame->moveId;
    sendToPart(0, transport::FrameType::RouteSwitchAnswer, encodeRouteSwitchAnswer(answer));
    return true;
  }

  // Part 0: an answer to the switch under way; any other is dropped.
  bool onRouteSwitchAnswer(uint32_t part, const std::vector<uint8_t>& payload) {
    std::string error;
    std::optional<RouteSwitchAnswer> answer = decodeRouteSwitchAnswer(payload, error);
    if (!answer) {
      noteDropped("RouteSwitchAnswer", part, error);
      return true;
    }
    std::lock_guard<std::mutex> guard(routeMutex_);
    if (part_.partIndex != 0 || part == 0 || part >= routeAnswers_.size() ||
        answer->moveId != pendingMove_ || answer->kind != pendingKind_ || routeAnswers_[part]) {
      noteDropped("RouteSwitchAnswer", part,
                  "it answers no switch under way (move " + std::to_string(answer->moveId) + ")");
      return true;
    }
    routeAnswers_[part] = std::move(*answer);
    routeAnswered_.notify_all();
    return true;
  }

 private:

  JobPart part_;
  // Which part runs each rank: an immutable table behind an atomic pointer,
  // read without a lock, switched whole by part 0's switchRoutes (or its
  // RouteSwitch frame) while every part is held at one control point.
  // Every table made is kept, under routeMutex_, until the link goes.
  std::atomic<const RankRoutes*> routes_{nullptr};
  std::vector<std::unique_ptr<const RankRoutes>> routeTables_;  // under routeMutex_
  // The route switch: part 0's switch under way (its move id and kind, 0
  // when none) and the answers to it, by part; every part's gate (why it is
  // not held at a control point, empty when it is) and test refusal.
  std::mutex routeMutex_;
  std::condition_variable routeAnswered_;
  uint64_t pendingMove_ = 0;
  uint8_t pendingKind_ = 0;
  std::vector<std::optional<RouteSwitchAnswer>> routeAnswers_;
  std::function<std::string(uint64_t)> routeGate_, routeRefusal_;
  std::function<bool(uint64_t, uint32_t)> routeMoveAllowed_;
  uint64_t lastSwitch_ = 0;  // a part's: the last switch part 0 sent it (I/O thread)
  // Null once this part has left (leave()); guarded by worldMutex_.
  std::mutex worldMutex_;
  mpi::World* world_;
  std::mutex mutex_;
  std::condition_variable introduced_;
  std::map<const transport::Connection*, uint32_t> partOfConnection_;
  std::vector<std::shared_ptr<transport::Connection>> peers_;
  std::vector<std::string> partAddresses_;
  // What is being read from one part of the job, by whoever reads its
  // connection (one thread at a time): the MpiMessage frame whose payload
  // is being placed, and a message split over frames, with the bytes of it
  // received so far.
  struct Assembly {
    std::unique_ptr<uint8_t[]> frame;
    bool active = false;
    mpi::RemoteMessage message;
    std::unique_ptr<uint8_t[]> data;
    uint64_t received = 0;
    // Rendezvous data (MpiRendezvousData): the receive it is for, nonzero,
    // and where it goes in place of `data`.
    uint64_t receiveId = 0;
    uint8_t* target = nullptr;
  };
  std::vector<Assembly> assembling_;
  // The job-wide deadlock check: what every part (this one included) last
  // said, the versions seen at the last check and for how many checks they
  // have held.
  static constexpr uint8_t kStateQuiet = 1;
  static constexpr uint8_t kStateFinished = 2;
  static constexpr uint8_t kStateLeft = 4;
  std::mutex stateMutex_;
  std::vector<PartState> partStates_;
  std::vector<uint64_t> watchedVersions_;
  // Eager credit (mpi/RemoteRanks.h) between this part and each other.
  // Grants come under mutex_, for join()'s wait.
  EagerCredit credit_;
  // A live move's sections, whose frames it takes before any other
  // handler (RankSectionTransfer.h): part 0 announces moves and hears how
  // they end, the others send and receive sections.
  RankSectionTransfer sections_;
  int quietTicks_ = 0;
  // The confirming round this part opened last (MpiStateCheck), whether it
  // still stands, and which parts have confirmed it.
  uint64_t checkRound_ = 0;
  bool roundOpen_ = false;
  std::vector<bool> confirmed_;
  // The version of this part's state last queued to every other part.
  uint64_t sentVersion_ = 0;
  // The MPI frames (all but MpiHello, MpiAbort and MpiHostState) this part
  // sent to and received from the others: equal sums over all parts mean
  // that none is in flight.
  std::atomic<uint64_t> framesSent_{0};
  std::atomic<uint64_t> creditFramesSent_{0};
  std::atomic<uint64_t> framesReceived_{0};
  std::vector<std::atomic<bool>> closedParts_;  // by part: partClosed()
  // By part: it sent its final state (leave()), as a part does once a live
  // move took its last rank; set before its connection closes.
  std::vector<std::atomic<bool>> leftParts_;
  CheckpointFrames checkpointFrames_;  // under mutex_
  // From a successful join() until leave(): a connection that closes
  // before, as a failed join unwinds, is that failure's, which join()
  // reports; one that closes after, as this part's ranks have ended.
  std::atomic<bool> watchingPeers_{false};
  // Last, so that its I/O thread stops before the tables it uses go.
  std::unique_ptr<transport::Transport> transport_;
};

MpiPeerLink::MpiPeerLink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MpiPeerLink::~MpiPeerLink() = default;

std::unique_ptr<MpiPeerLink> MpiPeerLink::join(const JobPart& part, mpi::World& world,
                                               std::string& error,
                                               CheckpointFrames checkpointFrames) {
  if (world.size() != part.worldSize()) {
    error = "the job part's rank counts do not add up to the job's size";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>(part, world);
  impl->setCheckpointFrames(std::move(checkpointFrames));
  std::unique_ptr<MpiPeerLink> link(new MpiPeerLink(std::move(impl)));
  std::vector<bool> remote(size_t(world.size()), true);
  for (uint32_t rank : link->impl_->routes().ranksOf(part.partIndex)) remote[rank] = false;
  // Before any connection: messages may arrive as soon as one is up.
  world.attachRemoteRanks(*link, std::move(remote));
  if (!link->impl_->join(error)) return nullptr;
  if (!partRanksOwnCpus(part, link->impl_->partAddresses(), usableCpuCount())) world.shareCpus();
  return link;
}

void MpiPeerLink::send(const mpi::RemoteMessage& message, util::FunctionRef<void(uint8_t*)> pack) {
  impl_->send(message, pack);
}

void MpiPeerLink::sendBatched(const mpi::RemoteMessage& message,
                              util::FunctionRef<void(uint8_t*)> pack) {
  impl_->sendBatched(message, pack);
}

void MpiPeerLink::publishBatched() { impl_->publishBatched(); }

bool MpiPeerLink::switchRoutes(uint64_t moveId, uint64_t round,
                               const std::vector<uint32_t>& partOfRank, const std::string& inFlight,
                               std::string& why) {
  return impl_->switchRoutes(moveId, round, partOfRank, inFlight, why);
}

void MpiPeerLink::setRouteMoveAllowance(std::function<bool(uint64_t, uint32_t)> allowed) {
  impl_->setRouteMoveAllowance(std::move(allowed));
}

void MpiPeerLink::setRouteGate(std::function<std::string(uint64_t)> gate,
                               std::function<std::string(uint64_t)> refusal) {
  impl_->setRouteGate(std::move(gate), std::move(refusal));
}

std::vector<uint32_t> MpiPeerLink::partOfRanks() const { return impl_->routes().partOfRanks(); }

void MpiPeerLink::sendInPlace(const mpi::RemoteMessage& message,
                              const std::vector<mpi::LentData>& pieces,
                              std::function<void()> written) {
  impl_->sendInPlace(message, pieces, std::move(written));
}

void MpiPeerLink::sendRequestToSend(const mpi::RemoteMessage& message) {
  impl_->sendRequestToSend(message);
}

void MpiPeerLink::clearToSend(int sender, uint64_t sendId, int receiver, uint64_t receiveId) {
  impl_->clearToSend(sender, sendId, receiver, receiveId);
}

void MpiPeerLink::sendRendezvousData(int receiver, uint64_t receiveId, const uint8_t* data,
                                     int64_t bytes, std::function<void()> written) {
  impl_->sendRendezvousData(receiver, receiveId, data, bytes, std::move(written));
}

bool MpiPeerLink::takeEagerCredit(int receiver, int64_t bytes) {
  return impl_->takeEagerCredit(receiver, bytes);
}

void MpiPeerLink::returnEagerCredit(int sender, int64_t bytes) {
  impl_->returnEagerCredit(sender, bytes);
}

void MpiPeerLink::acknowledgeMatch(int sender, uint64_t matchId, int64_t creditBytes) {
  impl_->acknowledgeMatch(sender, matchId, creditBytes);
}

int MpiPeerLink::hostOf(int worldRank) const { return impl_->hostOf(worldRank); }

int64_t MpiPeerLink::maxMessageBytes() const {
  return int64_t(transport::kMaxMpiMessageBytes);
}

void MpiPeerLink::sendRma(const mpi::RemoteRmaOp& op, util::FunctionRef<void(uint8_t*)> pack) {
  impl_->sendRma(op, pack);
}

void MpiPeerLink::rmaDone(int origin, uint64_t id, const uint8_t* data, int64_t bytes) {
  impl_->rmaDone(origin, id, data, bytes);
}

int64_t MpiPeerLink::maxRmaBytes() const {
  return int64_t(transport::kMaxFramePayloadBytes - transport::kMpiRmaHeaderBytes);
}

void MpiPeerLink::abortJob(int status) { impl_->abortJob(status); }

std::optional<std::string> MpiPeerLink::checkJobDeadlock(int stableTicks) {
  return impl_->checkJobDeadlock(stableTicks);
}

void MpiPeerLink::leave() { impl_->leave(); }

void MpiPeerLink::receiveWhileWaiting() { impl_->receiveWhileWaiting(); }
void MpiPeerLink::startPolling() { impl_->startPolling(); }
void MpiPeerLink::stopPolling(bool mayLinger) { impl_->stopPolling(mayLinger); }

uint64_t MpiPeerLink::eagerCreditShortfalls() const { return impl_->eagerCreditShortfalls(); }
uint64_t MpiPeerLink::eagerCreditFramesSent() const { return impl_->eagerCreditFramesSent(); }

void MpiPeerLink::sendToPart(uint32_t part, transport::FrameType type,
                             std::vector<uint8_t> payload) {
  impl_->sendToPart(part, type, std::move(payload));
}

uint64_t MpiPeerLink::framesSent() const { return impl_->framesSent(); }
uint64_t MpiPeerLink::framesReceived() const { return impl_->framesReceived(); }
bool MpiPeerLink::partClosed(uint32_t part) const { return impl_->partClosed(part); }
RankSectionTransfer& MpiPeerLink::sectionTransfer() { return impl_->sectionTransfer(); }

int runJobPart(const std::string& partFile, mpi::JobOptions job,
               const PartCheckpointing* checkpoints) {
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "synergy-run: error: %s: %s\n", partFile.c_str(), message.c_str());
    return 2;
  };
  // A part dies with its synergyd: the client then ends the other parts,
  // and nothing would be left to end this one.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return fail("synergyd is gone");
  // Every frame that arrives gets a buffer of its own, freed once its
  // message is received. From mmap, or from a heap trimmed on free, each
  // one costs a page fault per 4 KiB (a window of 64 messages of 4 MiB:
  // 450,000 faults); from a heap that keeps freed memory, the next frames
  // reuse it. This process exists for its ranks alone.
  mallopt(M_MMAP_THRESHOLD, int(transport::kMaxFramePayloadBytes + transport::kFrameHeaderBytes));
  mallopt(M_TRIM_THRESHOLD, kKeptFreeHeapBytes);
  JobPart part;
  std::string error;
  if (!readJobPart(partFile, part, error)) return fail(error);
  if (int(part.partRanks[part.partIndex]) != job.ranks)
    return fail("-np " + std::to_string(job.ranks) + " is not the part's " +
                std::to_string(part.partRanks[part.partIndex]) + " ranks");
  RankRoutes routes = part.routes();
  job.worldRanks.assign(routes.ranksOf(part.partIndex).begin(),
                        routes.ranksOf(part.partIndex).end());
  job.worldSize = part.worldSize();
  // The parts' status lines name their ranks as runs (RankRoutes::runs).
  std::string ranksHere = routes.runs(part.partIndex);
  std::unique_ptr<PartCheckpoints> checkpointing;
  if (checkpoints) {
    checkpointing = PartCheckpoints::create(part, *checkpoints, job, error);
    if (!checkpointing) {
      std::fprintf(stderr, "synergy-run: error: %s\n", error.c_str());
      return 2;
    }
  }
  std::unique_ptr<MpiPeerLink> link;
  job.joinHosts = [&](mpi::World& world, std::string& joinError) {
    link = MpiPeerLink::join(part, world, joinError,
                             checkpointing ? checkpointing->frames(world)
                                           : MpiPeerLink::CheckpointFrames());
    if (checkpointing) checkpointing->attach(link.get(), joinError);
    return link != nullptr;
  };
  job.leaveHosts = [&] {
    if (checkpointing) checkpointing->finishWrites();
    link->leave();
  };
  job.reportAtEnd = [&] {
    if (checkpointing) checkpointing->printStatistics();
    if (const char* stats = std::getenv("SYNERGY_MPI_STATS"); stats && std::strcmp(stats, "0")) {
      std::string report = mpi::crossHostMessageReport();
      std::fprintf(stderr,
                   "synergy-run: mpi: collective messages between hosts from ranks %s: %s\n",
                   ranksHere.c_str(), report.empty() ? "none" : report.c_str());
      // What the part's process cost, to tell copies and page faults (system
      // time, minor faults) and thread hand-offs (context switches) apart on
      // a loaded machine, where wall time says little; and the most memory it
      // held, which unexpected messages would swell.
      struct rusage usage {};
      getrusage(RUSAGE_SELF, &usage);
      std::fprintf(stderr,
                   "synergy-run: mpi: ranks %s used %.3f s user, %.3f s system, %ld minor faults, "
                   "%ld voluntary and %ld involuntary context switches, %ld KiB peak resident\n",
                   ranksHere.c_str(),
                   double(usage.ru_utime.tv_sec) + double(usage.ru_utime.tv_usec) * 1e-6,
                   double(usage.ru_stime.tv_sec) + double(usage.ru_stime.tv_usec) * 1e-6,
                   usage.ru_minflt, usage.ru_nvcsw, usage.ru_nivcsw, usage.ru_maxrss);
      if (link)
        std::fprintf(stderr,
                     "synergy-run: mpi: ranks %s sent %llu messages by rendezvous for want of "
                     "eager credit\n",
                     ranksHere.c_str(),
                     static_cast<unsigned long long>(link->eagerCreditShortfalls()));
      if (link)
        std::fprintf(stderr, "synergy-run: mpi: ranks %s sent %llu eager credit frames\n",
                     ranksHere.c_str(),
                     static_cast<unsigned long long>(link->eagerCreditFramesSent()));
    }
  };
  int status = mpi::runJob(job);
  job.reportAtEnd();
  return status;
}

}  // namespace synergy::cluster

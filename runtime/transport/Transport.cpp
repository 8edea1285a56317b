//===- Transport.cpp - Framed, authenticated host-to-host connections -----===//
//
// This file implements Transport.h over asio TCP sockets. One I/O thread runs
// an io_context; a connection's state is touched only on that thread, but
// for its reading and its senders' direct writes (both below). send() and
// connectionTo() post work to it from any thread.
//
// Reading a frame takes the 16 header bytes, then, only after
// decodeFrameHeader accepted the header against the type's maximum, the
// payload, of exactly the stated length, into the buffer the PayloadPlacer
// names or else into the Frame's own, with nonblocking reads until the
// socket has no more bytes. Headers and short payloads come through a small
// staging buffer, so that one read takes in many small frames; a long
// payload is read straight into its place, with at most a staging buffer's
// worth of it copied.
//
// The state of a half-read frame lives in the connection, so that reading
// may stop at any byte and go on in another thread: whoever holds the
// connection's read turn reads and handles its frames, one at a time and
// in their order. The I/O thread asks for the turn whenever asio reports
// the socket readable; a request made while another thread holds the turn
// makes that thread read once more before it lets go, so no arrival goes
// unread. If that thread is landing a long payload, or has yet to read on
// for an earlier report (it is in a handler), asio is then not asked
// again until the turn is let go of (the wait stays parked), or else it
// would report every part of the message that thread is still reading, or
// the same unread bytes over and over; otherwise it is asked again at
// once, since a parked wait costs the thread that lets go a post to the
// I/O thread, and that thread a wake-up and an empty read, for every short
// message. A waiting rank takes the turn through receiveHere() when it is
// free. Off the I/O thread, the turn goes over to the I/O thread (posted,
// still held) at the first frame of a type the config does not let other
// threads handle, and at the connection's end. A connection is readable
// by other threads only once authenticated, through a list that drop()
// takes it off, under a mutex that readers hold, before the socket closes.
//
// While threads read here (startReadingHere()), the readable connections'
// sockets have their receive low-water mark (SO_RCVLOWAT) raised to its
// most, which the kernel caps at half the socket's receive buffer: TCP
// then signals no reader of a smaller arrival, so asio's epoll_wait on the
// I/O thread does not return for it, while a nonblocking recv still takes
// whatever has come. Taking the mark back to 1 at the last stop makes the
// kernel signal the data already there, so the I/O thread reads what the
// threads left. A connection's end and its errors are signalled whatever
// the mark. This costs a setsockopt per connection at each end of such a
// stretch, against, per frame, an I/O thread wake-up, its epoll_wait and
// its re-arming epoll_ctl, and its reads. A last stop whose thread goes
// back to work rather than to sleep leaves the marks up for
// config.marksLinger more (500 us by default), and a timer on the I/O
// thread takes them back once no stretch came meanwhile: a rank that
// polls again within it (the next step of a collective, the next call of
// a loop) pays no setsockopt, and reads itself what came meanwhile, which
// woke no thread. Longer, and a frame only the I/O thread handles, or a
// message for a rank out computing, waits for as long when no rank polls.
//
// A read that fills less than the staging buffer took all the socket had:
// the reader ends its turn there rather than ask again for the nothing
// that would follow. Bytes that came since wake the I/O thread, whose
// request for the turn makes the holder read once more (or are met by the
// polling thread's next look), as they would after an empty read; the
// next turn, and each read of a turn's repeat, starts with a real read.
//
// Writing gathers header, payload and lent bytes, of as many queued frames
// as one writev takes, in one async_write, so a payload is never copied
// into a frame.
//
// A sender whose connection has nothing queued writes its frame itself,
// with one nonblocking sendmsg on the socket, instead of handing it to the
// I/O thread: a message then costs no thread wake-up on the sending host.
// Whatever the socket does not take at once goes to the I/O thread as a
// frame with its first bytes marked written, and every later frame queues
// behind it, so frames never interleave. Senders and the I/O thread agree
// through one mutex per connection on a count of the frames the I/O thread
// holds (posted, queued or being written): a sender writes directly only
// when that count is zero, and the I/O thread writes only frames it holds,
// so the socket never has two writers.
//
// A batch (sendBatched()) is one buffer per connection, under the same
// mutex, into which frames are encoded whole, so a burst of short frames
// costs one copy of each and one sendmsg for all. It is written like a
// sender's frame, directly or behind what the I/O thread holds, by
// flushBatch(), when it fills, and before any other sender's frame, so
// it keeps its place in the connection's order.
//
// The queue bound is kept per connection in an atomic count of queued
// payload bytes: senders add to it before they post, the I/O thread takes
// off what it has written or dropped, and wakes waiting senders through a
// condition variable only when some are waiting.
//
//===----------------------------------------------------------------------===//
#include "transport/Transport.h"

#include <algorithm>
#include <asio.hpp>
#include <atomic>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

#include <sys/socket.h>
#include <sys/uio.h>

#include "transport/ClusterToken.h"
#include "transport/FrameCodec.h"

namespace synergy::transport {

namespace {

using asio::ip::tcp;

class AsioConnection;

// Which side opened the connection decides which handshake frame it expects
// first.
enum class ConnectionRole { Accepted, Connected };

// The outcome of a handshake, for connectionTo's waiters: the connection,
// or the error and whether the peer refused it (HelloRefused).
using HandshakeWaiter = std::function<void(std::shared_ptr<Connection>, const std::string& error,
                                           bool refused)>;

// State shared by the Transport and its connections; I/O thread only, except
// for the immutable config.
struct TransportCore {
  explicit TransportCore(TransportConfig config) : config(std::move(config)) {}

  void log(const std::string& line) const {
    if (config.log) config.log(line);
  }
  void forget(AsioConnection* connection);

  const TransportConfig config;
  asio::io_context io;
  std::set<std::shared_ptr<AsioConnection>> live;
  std::map<std::string, std::shared_ptr<AsioConnection>> peersByAddress;
  unsigned acceptedCount = 0;
  // The authenticated connections, for receiveHere(): under readableMutex,
  // which a reading thread holds while it reads them.
  std::mutex readableMutex;
  std::vector<AsioConnection*> readable;
  // How many threads are between startReadingHere() and
  // stopReadingHere(); under readersHereMutex, which is taken before
  // readableMutex.
  std::mutex readersHereMutex;
  // Changed only under readersHereMutex; read without it by a thread that
  // lets go of a read turn (AsioConnection::rearmIfParked()).
  std::atomic<unsigned> readersHere{0};
  // Under readersHereMutex: whether the readable connections' low-water
  // marks are raised; whether one of the current stretch's stops asked
  // for them back at once; when the last stretch that let them linger
  // stopped; and whether lingerTimer is armed to take them back.
  // marksRaised is also read without the mutex, by a thread that lets go
  // of a read turn (AsioConnection::rearmIfParked()).
  std::atomic<bool> marksRaised{false};
  bool restoreDue = false;
  std::chrono::steady_clock::time_point lastLingeringStop;
  bool lingerTimerArmed = false;
  // Declared after io, so destroyed before it.
  asio::steady_timer lingerTimer{io};
};

// Set while a thread other than the I/O thread handles frames
// (receiveHere()): its sends then never wait for room, as the I/O
// thread's do not, so that reading goes on however full the queues are.
thread_local bool handlingFramesHere = false;

// How a turn at reading a connection ended.
enum class ReadOutcome {
  Drained,     // the socket has no more bytes for now
  HandedOver,  // posted to the I/O thread, turn and all
  Ended,       // the connection is closing
};


// The most pieces (header, payload and each lent piece of a frame) one
// write gathers, but for a first frame of more.
constexpr size_t kMaxWriteVectors = 64;
// The most bytes one direct sendmsg() hands the kernel. A longer call
// stalls: its receiver sees the data in bursts with gaps of 50-150 us
// (apparently because within one call the kernel takes in the ACKs that
// came meanwhile only every 16 segments, about 1 MiB on loopback, and
// waits on the congestion window between), while between calls the
// socket's backlog is processed whole. A 4 MiB ping-pong
// across two synergyd (median half round trip, SCHED_FIFO, loaded 2-core
// machine): one call 716-761 us, 2 MiB 616-728, 1 MiB 572-702, 512 KiB
// 409-426, 256 KiB 443-453, 128 KiB 515-695.
constexpr size_t kMaxDirectWriteBytes = 512 << 10;
// What each socket asks for as send and receive buffer (the kernel caps it
// at net.core.wmem_max/rmem_max): a sender then hands a large message to
// the kernel without waiting for room, and the receiver takes it in few
// wake-ups.
constexpr int kSocketBufferBytes = 4 << 20;
// Reads for headers and short payloads take up to this many bytes into a
// connection's staging buffer; a want of at least kStraightReadBytes is
// read straight into its place.
constexpr size_t kStagingBytes = 16 << 10;
constexpr size_t kStraightReadBytes = 4 << 10;
// A report of arrivals during another thread's read turn leaves asio's wait
// parked only while that thread lands a payload of at least this many
// bytes: one that comes in several parts, each of which would report.
constexpr size_t kParkingPayloadBytes = kStagingBytes;
// A batch's buffer: room for a frame that would take the batch past
// Connection::kBatchBytes.
constexpr size_t kBatchCapacity = 2 * Connection::kBatchBytes;

// Sets the socket buffers of a socket or acceptor (whose accepted sockets
// inherit them), before the connection is set up so that TCP's window
// scale covers them.
template <typename Socket>
void sizeSocketBuffers(Socket& socket) {
  asio::error_code ignored;
  socket.set_option(asio::socket_base::send_buffer_size(kSocketBufferBytes), ignored);
  socket.set_option(asio::socket_base::receive_buffer_size(kSocketBufferBytes), ignored);
}

std::string endpointName(const tcp::endpoint& endpoint) {
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

// Tells the peer of a connection about to be closed before its handshake
// why (HelloRefused), so that it can tell a refusal from a host that went
// away. One nonblocking write of a few bytes to a socket that has sent
// nothing yet: its buffer takes them. Best effort: a peer that misses it
// sees the connection close.
void refuseHandshake(int socket, const std::string& reason) {
  std::string text = reason.substr(0, kMaxRefusalBytes);
  FrameHeaderBytes header = encodeFrameHeader(FrameType::HelloRefused, text.size());
  std::vector<uint8_t> bytes(header.begin(), header.end());
  bytes.insert(bytes.end(), text.begin(), text.end());
  while (::send(socket, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
         errno == EINTR) {
  }
}

class AsioConnection final : public Connection {
 public:
  AsioConnection(TransportCore& core, tcp::socket socket, ConnectionRole role,
                 std::string peerName)
      : core_(core), socket_(std::move(socket)), handshakeTimer_(core.io), role_(role),
        peerName_(std::move(peerName)) {}

  void send(FrameType type, std::vector<uint8_t> payload) override {
    waitForRoom();
    OutboundFrame frame{encodeFrameHeader(type, payload.size()), std::move(payload)};
    std::lock_guard<std::mutex> guard(writeMutex_);
    writeBatch();
    if (writeDirectly(&frame, 1) == 1) return;
    ++framesAtIoThread_;
    queuedBytes_.fetch_add(frame.payload.size());
    asio::post(core_.io, [self = self(), frame = std::move(frame)]() mutable {
      self->enqueueHeld(std::move(frame));
    });
  }

  void sendLent(std::vector<LentFrame> lentFrames, std::function<void()> released) override {
    waitForRoom();
    std::vector<OutboundFrame> frames;
    frames.reserve(lentFrames.size());
    for (LentFrame& lentFrame : lentFrames) {
      size_t lentBytes = lentFrame.lentBytes();
      frames.push_back({encodeFrameHeader(lentFrame.type, lentFrame.head.size() + lentBytes),
                        std::move(lentFrame.head), std::move(lentFrame.lent), lentBytes});
    }
    std::unique_lock<std::mutex> lock(writeMutex_);
    writeBatch();
    size_t done = writeDirectly(frames.data(), frames.size());
    if (done == frames.size()) {
      lock.unlock();
      if (released) released();
      return;
    }
    frames.erase(frames.begin(), frames.begin() + ptrdiff_t(done));
    frames.back().released = std::move(released);
    framesAtIoThread_ += frames.size();
    uint64_t headBytes = 0;
    for (const OutboundFrame& frame : frames) headBytes += frame.payload.size();
    queuedBytes_.fetch_add(headBytes);
    asio::post(core_.io, [self = self(), frames = std::move(frames)]() mutable {
      for (OutboundFrame& frame : frames) self->enqueueHeld(std::move(frame));
    });
  }

  void sendBatched(FrameType type, size_t payloadBytes,
                   util::FunctionRef<void(uint8_t*)> fill) override {
    waitForRoom();
    size_t frameBytes = kFrameHeaderBytes + payloadBytes;
    std::lock_guard<std::mutex> guard(writeMutex_);
    if (batchBytes_ + frameBytes > batchCapacity_) {
      writeBatch();
      if (frameBytes > batchCapacity_) {
        batchCapacity_ = std::max(frameBytes, kBatchCapacity);
        batch_.reset(new uint8_t[batchCapacity_]);
      }
    }
    FrameHeaderBytes header = encodeFrameHeader(type, payloadBytes);
    uint8_t* frame = batch_.get() + batchBytes_;
    std::memcpy(frame, header.data(), header.size());
    fill(frame + header.size());
    batchBytes_ += frameBytes;
    batched_.store(true, std::memory_order_relaxed);
    if (batchBytes_ >= kBatchBytes) writeBatch();
  }

  void flushBatch() override {
    if (!batched_.load(std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> guard(writeMutex_);
    writeBatch();
  }

  const std::string& peerName() const override { return peerName_; }

  ConnectionRole role() const { return role_; }
  bool hasQueuedFrames() const { return !closed_ && (writing_ || !outbound_.empty()); }
  bool authenticated() const { return authenticated_; }
  void addWaiter(HandshakeWaiter waiter) { waiters_.push_back(std::move(waiter)); }

  void startAccepted() {
    armHandshakeTimer();
    setNoDelay();
    startReading();
  }

  // Off the I/O thread (Transport::receiveHere, which holds
  // core_.readableMutex): reads and handles what has arrived when no
  // thread holds the read turn. It asks for nothing otherwise: the holder reads on until the socket
  // is drained, and a waiting thread that counted a request each time it looked would keep the
  // holder reading for it.
  void readHere() {
    uint32_t free = 0;
    if (readTurns_.compare_exchange_strong(free, 1, std::memory_order_acq_rel))
      takeReadTurn(/*ioThread=*/false);
  }

  // With core_.readableMutex held (so the socket is open): whether data
  // arriving signals readers, the I/O thread's epoll among them (see the
  // file comment). Turning it back on signals data already there.
  void signalArrivals(bool signal) {
    int lowWater = signal ? 1 : INT_MAX;
    ::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVLOWAT, &lowWater, sizeof lowWater);
  }

  // Off the I/O thread, once no thread reads here any more: arms the wait
  // for arrivals if a read turn left it parked (rearmIfParked()).
  void armParkedWait() { rearmIfParked(/*ioThread=*/false); }


  void startConnecting(const tcp::endpoint& endpoint) {
    armHandshakeTimer();
    asio::error_code openError;
    socket_.open(endpoint.protocol(), openError);
    if (openError) return drop("cannot open a socket: " + openError.message());
    sizeSocketBuffers(socket_);
    socket_.async_connect(endpoint, [self = self()](const asio::error_code& error) {
      if (self->closed_) return;
      if (error) return self->drop("cannot connect: " + error.message());
      self->setNoDelay();
      const std::string& token = self->core_.config.token;
      self->enqueue(FrameType::Hello, std::vector<uint8_t>(token.begin(), token.end()));
      self->startReading();
    });
  }

  // Closes the connection; a nonempty reason is logged.
  void drop(const std::string& reason) {
    if (closed_) return;
    closed_ = true;
    if (!reason.empty())
      core_.log(std::string(role_ == ConnectionRole::Accepted ? "dropped connection from "
                                                              : "dropped connection to ") +
                peerName_ + ": " + reason);
    {
      // Waits for a thread that is reading it.
      std::lock_guard<std::mutex> guard(core_.readableMutex);
      std::vector<AsioConnection*>& readable = core_.readable;
      readable.erase(std::remove(readable.begin(), readable.end(), this), readable.end());
    }
    {
      // No sender may write to the descriptor once it is closed (and
      // perhaps reused); a batch would go nowhere.
      std::lock_guard<std::mutex> guard(writeMutex_);
      directWrites_ = false;
      batchBytes_ = 0;
      batched_.store(false, std::memory_order_relaxed);
    }
    asio::error_code ignored;
    socket_.close(ignored);
    handshakeTimer_.cancel();
    std::deque<OutboundFrame> unsent;
    unsent.swap(outbound_);
    for (OutboundFrame& frame : unsent) finish(frame);
    gone_.store(true);
    wakeWaitingSenders();
    notifyWaiters(reason.empty() ? "connection closed" : reason);
    if (authenticated_ && core_.config.onClosed) core_.config.onClosed(*this);
    core_.forget(this);
  }

 private:
  std::shared_ptr<AsioConnection> self() {
    return std::static_pointer_cast<AsioConnection>(shared_from_this());
  }

  struct OutboundFrame {
    FrameHeaderBytes header;
    std::vector<uint8_t> payload;
    std::vector<LentBytes> lent;
    size_t lentBytes = 0;  // the sum of lent's sizes
    // Set on the last frame of a sendLent() group.
    std::function<void()> released;
    // Leading bytes a sender already wrote itself.
    size_t written = 0;

    size_t bytes() const { return header.size() + payload.size() + lentBytes; }
    // How many pieces unwrittenPieces() appends at most.
    size_t pieceCount() const { return 2 + lent.size(); }
    // Appends the pieces still to be written to `out`.
    template <typename Buffers>
    void unwrittenPieces(Buffers& out) const {
      size_t skip = written;
      auto add = [&](const uint8_t* data, size_t size) {
        size_t skipped = std::min(skip, size);
        skip -= skipped;
        if (size > skipped) out.push_back({data + skipped, size - skipped});
      };
      add(header.data(), header.size());
      add(payload.data(), payload.size());
      for (const LentBytes& piece : lent) add(piece.data, piece.size);
    }
  };

  struct Piece {
    const uint8_t* data;
    size_t size;
  };

  // With writeMutex_ held: writes the batch (sendBatched()) straight to
  // the socket if the I/O thread holds no frame, as far as the socket
  // takes it without waiting; the rest goes to the I/O thread, behind
  // whatever it holds, as one frame whose pieces are the rest of the batch
  // (its own header unused, so marked written).
  void writeBatch() {
    if (batchBytes_ == 0) return;
    batched_.store(false, std::memory_order_relaxed);
    size_t written = 0;
    if (directWrites_ && framesAtIoThread_ == 0) {
      std::vector<Piece> pieces{{batch_.get(), batchBytes_}};
      written = writePieces(pieces);
    }
    size_t left = batchBytes_ - written;
    batchBytes_ = 0;
    if (left == 0) return;
    OutboundFrame rest;
    rest.payload.assign(batch_.get() + written, batch_.get() + written + left);
    rest.written = rest.header.size();
    ++framesAtIoThread_;
    queuedBytes_.fetch_add(left);
    asio::post(core_.io, [self = self(), rest = std::move(rest)]() mutable {
      self->enqueueHeld(std::move(rest));
    });
  }

  // With writeMutex_ held: writes `pieces` in order as far as the socket
  // takes them without waiting; returns the bytes written.
  size_t writePieces(std::vector<Piece>& pieces) {
    size_t total = 0;
    size_t first = 0;  // the first piece not written whole
    while (first < pieces.size()) {
      iovec vectors[kMaxWriteVectors];
      size_t used = 0;
      size_t budget = kMaxDirectWriteBytes;
      for (size_t i = first; i < pieces.size() && used < kMaxWriteVectors && budget > 0; ++i) {
        size_t take = std::min(pieces[i].size, budget);
        budget -= take;
        vectors[used++] = {const_cast<uint8_t*>(pieces[i].data), take};
      }
      msghdr message{};
      message.msg_iov = vectors;
      message.msg_iovlen = used;
      ssize_t sent = ::sendmsg(socket_.native_handle(), &message, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      // A full socket waits for the I/O thread; a broken one is found and
      // reported by its write.
      if (sent <= 0) break;
      total += size_t(sent);
      for (size_t left = size_t(sent); left > 0;) {
        size_t taken = std::min(left, pieces[first].size);
        pieces[first].data += taken;
        pieces[first].size -= taken;
        left -= taken;
        if (pieces[first].size == 0) ++first;
      }
      while (first < pieces.size() && pieces[first].size == 0) ++first;
    }
    return total;
  }

  // With writeMutex_ held: writes `count` frames straight to the socket if
  // the I/O thread holds none, as far as the socket takes them without
  // waiting. Returns how many were written whole; the first one not
  // written whole has its `written` set.
  size_t writeDirectly(OutboundFrame* frames, size_t count) {
    if (!directWrites_ || framesAtIoThread_ != 0) return 0;
    std::vector<Piece> pieces;
    size_t unwritten = 0;
    for (size_t i = 0; i < count; ++i) frames[i].unwrittenPieces(pieces);
    for (const Piece& piece : pieces) unwritten += piece.size;
    unwritten -= writePieces(pieces);
    // Frames whole from the back: what is still unwritten belongs to the
    // last ones.
    size_t whole = count;
    while (whole > 0 && unwritten > 0) {
      OutboundFrame& frame = frames[whole - 1];
      size_t remaining = frame.bytes() - frame.written;
      if (unwritten >= remaining) {
        unwritten -= remaining;
        --whole;
        if (unwritten == 0) break;
      } else {
        frame.written += remaining - unwritten;
        unwritten = 0;
        --whole;
      }
    }
    return whole;
  }

  // Off the I/O thread, waits while the queue is at its bound.
  void waitForRoom() {
    uint64_t bound = core_.config.maxQueuedBytes;
    if (queuedBytes_.load() < bound || handlingFramesHere ||
        core_.io.get_executor().running_in_this_thread())
      return;
    std::unique_lock<std::mutex> lock(roomMutex_);
    waitingSenders_.fetch_add(1);
    room_.wait(lock, [&] { return gone_.load() || queuedBytes_.load() < bound; });
    waitingSenders_.fetch_sub(1);
  }

  void wakeWaitingSenders() {
    if (waitingSenders_.load() == 0) return;
    std::lock_guard<std::mutex> guard(roomMutex_);
    room_.notify_all();
  }

  // A frame the I/O thread held left the queue, written or not: its bytes
  // leave the count, and what it borrowed goes back.
  void finish(OutboundFrame& frame) {
    queuedBytes_.fetch_sub(frame.payload.size());
    frame.payload = {};
    {
      std::lock_guard<std::mutex> guard(writeMutex_);
      --framesAtIoThread_;
    }
    if (frame.released) {
      std::function<void()> released = std::move(frame.released);
      frame.released = nullptr;
      released();
    }
    wakeWaitingSenders();
  }

  void setNoDelay() {
    asio::error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
  }

  void armHandshakeTimer() {
    handshakeTimer_.expires_after(std::chrono::seconds(core_.config.handshakeSeconds));
    handshakeTimer_.async_wait([self = self()](const asio::error_code& error) {
      if (!error && !self->authenticated_)
        self->drop("no handshake within " + std::to_string(self->core_.config.handshakeSeconds) +
                   " s");
    });
  }

  void notifyWaiters(const std::string& error) {
    std::vector<HandshakeWaiter> waiters;
    waiters.swap(waiters_);
    for (HandshakeWaiter& waiter : waiters)
      waiter(error.empty() ? self() : nullptr, error, refusedByPeer_);
  }

  // Queues a frame of the I/O thread's own.
  void enqueue(FrameType type, std::vector<uint8_t> payload) {
    {
      std::lock_guard<std::mutex> guard(writeMutex_);
      ++framesAtIoThread_;
    }
    queuedBytes_.fetch_add(payload.size());
    enqueueHeld(OutboundFrame{encodeFrameHeader(type, payload.size()), std::move(payload)});
  }

  // Queues a frame that framesAtIoThread_ and queuedBytes_ already count.
  void enqueueHeld(OutboundFrame frame) {
    if (closed_) return finish(frame);
    outbound_.push_back(std::move(frame));
    if (!writing_) writeNext();
  }

  // Writes the queued frames from the front, as many as one writev takes.
  void writeNext() {
    if (closed_ || outbound_.empty()) {
      writing_ = false;
      return;
    }
    writing_ = true;
    writeBuffers_.clear();
    size_t frames = 0;
    for (const OutboundFrame& frame : outbound_) {
      if (frames > 0 && writeBuffers_.size() + frame.pieceCount() > kMaxWriteVectors) break;
      frame.unwrittenPieces(writeBuffers_);
      ++frames;
    }
    asio::async_write(socket_, writeBuffers_,
                      [self = self(), frames](const asio::error_code& error, size_t) {
                        if (self->closed_) return;
                        if (error) return self->drop("write failed: " + error.message());
                        for (size_t i = 0; i < frames; ++i) {
                          OutboundFrame written = std::move(self->outbound_.front());
                          self->outbound_.pop_front();
                          self->finish(written);
                        }
                        self->writeNext();
                      });
  }

  // Reads from the first frame on, on the I/O thread: whatever came
  // before the socket was registered with asio (which reports only new
  // arrivals) is read at once.
  void startReading() {
    awaitReadable();
    requestReadTurn();
  }

  // Asks asio to report the socket readable once. When the I/O thread
  // takes the read turn on the report, it asks again before it reads, so
  // that bytes arriving during the turn are reported too. When another
  // thread holds the turn, the report makes that thread read once more.
  // While that thread lands a long payload (landingLongPayload_), or has
  // not yet read on for an earlier report (readTurns_ above 1), the wait
  // is then not armed again until it lets go: armed again at once, it came
  // back at every arrival of the message that thread was still reading
  // (the I/O thread spun through 30-80 epoll_waits a 512 KiB MPI_Reduce).
  // The thread that lets go arms it (waitParked_), and the I/O thread then
  // reads once, for what came while it was not. Otherwise it is armed
  // again at once: parked behind a short frame, it cost the p2p kernel's
  // stream of 8-byte messages a post and an I/O-thread wake-up each time
  // the receiving rank let go of the turn.
  void awaitReadable() {
    socket_.async_wait(tcp::socket::wait_read, [self = self()](const asio::error_code& error) {
      if (self->closed_) return;
      if (error) return self->drop("read failed: " + error.message());
      // A report while another thread holds the turn and has yet to read
      // what an earlier report of its turn asked it to (it is in a
      // handler: a clear-to-send whose data it writes, a frame whose
      // handler waits) parks as well: armed again at once, the wait came
      // back at once, the data being unread, and the I/O thread spun
      // through epoll_wait and epoll_ctl until the holder let go, taking a
      // CPU from it (thousands of spins in a window of rendezvous sends).
      if (!self->landingLongPayload_.load(std::memory_order_seq_cst) &&
          self->readTurns_.load(std::memory_order_seq_cst) <= 1) {
        self->awaitReadable();
        return self->requestReadTurn();
      }
      self->waitParked_.store(true, std::memory_order_seq_cst);
      if (self->readTurns_.fetch_add(1, std::memory_order_seq_cst) != 0) return;
      // The turn is this thread's: armed again before it reads, as no
      // other thread lets go of it meanwhile, unless a thread that let
      // go of it just before took the parked wait and arms it itself.
      if (self->waitParked_.exchange(false, std::memory_order_acq_rel)) self->awaitReadable();
      self->takeReadTurn(/*ioThread=*/true);
    });
  }

  // On the I/O thread.
  void requestReadTurn() {
    if (readTurns_.fetch_add(1, std::memory_order_seq_cst) == 0) takeReadTurn(/*ioThread=*/true);
  }

  // After a read turn was let go of: arms the wait that a report left
  // parked while the turn was held, on the I/O thread, and reads what came
  // before it was armed. While threads read here they read what comes, and
  // whoever takes the low-water marks back arms it (restoreMarks()), so a
  // thread of theirs that lets go leaves it parked rather than wake the
  // I/O thread for a read that finds nothing; so does a thread that lets
  // go while the marks linger after the last stop, since the next poll
  // will read what comes.
  void rearmIfParked(bool ioThread) {
    if (!ioThread && core_.marksRaised.load(std::memory_order_seq_cst)) return;
    if (!waitParked_.exchange(false, std::memory_order_seq_cst)) return;
    if (ioThread) return startReading();
    asio::post(core_.io, [self = self()] {
      if (!self->closed_) self->startReading();
    });
  }

  // With the read turn: reads until the socket is drained and no request
  // came meanwhile, then lets go of the turn; or hands it over.
  void takeReadTurn(bool ioThread) {
    for (;;) {
      uint32_t requests = readTurns_.load(std::memory_order_acquire);
      ReadOutcome outcome = readFrames(ioThread);
      if (outcome == ReadOutcome::Ended) return;
      if (outcome == ReadOutcome::HandedOver) {
        asio::post(core_.io, [self = self()] {
          if (!self->closed_) self->takeReadTurn(/*ioThread=*/true);
        });
        return;
      }
      // Said before the turn is free, so that a report after it finds the
      // turn free or a holder that has not begun a long payload.
      landingLongPayload_.store(false, std::memory_order_seq_cst);
      if (readTurns_.compare_exchange_strong(requests, 0, std::memory_order_seq_cst))
        return rearmIfParked(ioThread);
    }
  }

  // The connection ends with `reason` (logged unless empty): at once on
  // the I/O thread, posted to it from another. The read turn is kept, so
  // nothing reads it any more.
  ReadOutcome endReading(const std::string& reason, bool ioThread) {
    if (ioThread)
      drop(reason);
    else
      asio::post(core_.io, [self = self(), reason] { self->drop(reason); });
    return ReadOutcome::Ended;
  }

  // One nonblocking read of up to `bytes` into `into`: the count read, 0 at
  // the end of the stream, -1 when the socket has nothing now; anything
  // else ends the connection (-2).
  ssize_t readSome(uint8_t* into, size_t bytes, bool ioThread) {
    for (;;) {
      ssize_t got = ::recv(socket_.native_handle(), into, bytes, MSG_DONTWAIT);
      if (got >= 0) return got;
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return -1;
      endReading("read failed: " + std::error_code(errno, std::system_category()).message(),
                 ioThread);
      return -2;
    }
  }

  // Up to `bytes` for `into`, as readSome() counts them: the staged bytes
  // first; else a short want reads what the socket has into the staging
  // buffer, a long one reads straight into `into`.
  ssize_t takeBytes(uint8_t* into, size_t bytes, bool ioThread) {
    if (stagedBegin_ == stagedEnd_) {
      if (lastFillShort_) {
        lastFillShort_ = false;
        return -1;
      }
      if (bytes >= kStraightReadBytes) return readSome(into, bytes, ioThread);
      if (!staging_) staging_.reset(new uint8_t[kStagingBytes]);
      ssize_t got = readSome(staging_.get(), kStagingBytes, ioThread);
      if (got <= 0) return got;
      stagedBegin_ = 0;
      stagedEnd_ = size_t(got);
      lastFillShort_ = stagedEnd_ < kStagingBytes;
    }
    size_t taken = std::min(bytes, stagedEnd_ - stagedBegin_);
    std::memcpy(into, staging_.get() + stagedBegin_, taken);
    stagedBegin_ += taken;
    return ssize_t(taken);
  }

  // With the read turn: reads and handles frames until the socket has no
  // more bytes, the turn goes to the I/O thread, or the connection ends.
  ReadOutcome readFrames(bool ioThread) {
    // A short fill of an earlier turn says nothing of what has come since.
    lastFillShort_ = false;
    for (;;) {
      if (!headerTaken_) {
        ssize_t got = takeBytes(headerBytes_.data() + headerHave_,
                                kFrameHeaderBytes - headerHave_, ioThread);
        if (got == -2) return ReadOutcome::Ended;
        if (got == -1) return ReadOutcome::Drained;
        if (got == 0 && headerHave_ == 0)
          return endReading(authenticated_ ? "" : "closed before the handshake", ioThread);
        if (got == 0)
          return endReading("truncated frame header (" + std::to_string(headerHave_) + " of " +
                                std::to_string(kFrameHeaderBytes) + " bytes)",
                            ioThread);
        headerHave_ += size_t(got);
        if (headerHave_ < kFrameHeaderBytes) continue;
        headerHave_ = 0;
        if (!takeHeader(ioThread)) return ReadOutcome::Ended;
      }
      if (!ioThread && !receivableHere(header_.type)) return ReadOutcome::HandedOver;
      if (!payloadInto_ && header_.payloadBytes > 0) placePayload();
      if (header_.payloadBytes >= kParkingPayloadBytes && payloadHave_ < header_.payloadBytes)
        landingLongPayload_.store(true, std::memory_order_seq_cst);
      while (payloadHave_ < header_.payloadBytes) {
        ssize_t got = takeBytes(payloadInto_ + payloadHave_,
                                size_t(header_.payloadBytes - payloadHave_), ioThread);
        if (got == -2) return ReadOutcome::Ended;
        if (got == -1) return ReadOutcome::Drained;
        if (got == 0)
          return endReading("truncated frame (" + std::to_string(payloadHave_) + " of " +
                                std::to_string(header_.payloadBytes) + " payload bytes)",
                            ioThread);
        payloadHave_ += uint64_t(got);
      }
      headerTaken_ = false;
      if (!handleFrame(ioThread)) return ReadOutcome::Ended;
    }
  }

  // Whether a thread other than the I/O thread may handle a frame of
  // `type`: never the transport's own.
  bool receivableHere(FrameType type) const {
    return type != FrameType::Hello && type != FrameType::HelloAck && type != FrameType::Ping &&
           type != FrameType::Pong && core_.config.receivableHere(type);
  }

  // Checks the header just read; false when the connection ends.
  bool takeHeader(bool ioThread) {
    std::string reason;
    if (!decodeFrameHeader(headerBytes_, header_, reason)) {
      endReading(reason, ioThread);
      return false;
    }
    if (!authenticated_) {
      FrameType expected =
          role_ == ConnectionRole::Accepted ? FrameType::Hello : FrameType::HelloAck;
      bool refusal = role_ == ConnectionRole::Connected && header_.type == FrameType::HelloRefused;
      if (header_.type != expected && !refusal) {
        endReading(std::string("first frame is ") + frameTypeName(header_.type) + ", not " +
                       frameTypeName(expected),
                   ioThread);
        return false;
      }
    }
    headerTaken_ = true;
    payloadInto_ = nullptr;
    payloadHave_ = 0;
    placed_ = false;
    payload_.clear();
    return true;
  }

  // Chooses where the nonempty payload of the accepted header goes.
  void placePayload() {
    if (authenticated_ && core_.config.placePayload && header_.type != FrameType::Ping &&
        header_.type != FrameType::Hello && header_.type != FrameType::HelloAck) {
      payloadInto_ = core_.config.placePayload(*this, header_.type, header_.payloadBytes);
      placed_ = payloadInto_ != nullptr;
    }
    if (!placed_) {
      payload_.assign(header_.payloadBytes, 0);
      payloadInto_ = payload_.data();
    }
  }

  // Hands a frame read whole to its handler; false when the connection
  // ends.
  bool handleFrame(bool ioThread) {
    if (placed_) {
      std::string reason = std::string("unexpected ") + frameTypeName(header_.type) + " frame";
      if (!core_.config.onPlacedFrame(*this, header_.type, header_.payloadBytes, reason)) {
        endReading(reason, ioThread);
        return false;
      }
      return !ioThread || !closed_;
    }
    Frame frame{header_.type, std::move(payload_)};
    payload_ = {};
    if (!authenticated_) {
      if (!onHandshakeFrame(frame)) return false;
    } else if (frame.type == FrameType::Hello || frame.type == FrameType::HelloAck) {
      endReading(std::string("unexpected ") + frameTypeName(frame.type) + " after the handshake",
                 ioThread);
      return false;
    } else if (frame.type == FrameType::Ping) {
      enqueue(FrameType::Pong, std::move(frame.payload));
    } else {
      std::string reason = std::string("unexpected ") + frameTypeName(frame.type) + " frame";
      if (!core_.config.onFrame || !core_.config.onFrame(*this, std::move(frame), reason)) {
        endReading(reason, ioThread);
        return false;
      }
    }
    return !ioThread || !closed_;
  }

  // Completes the handshake; false when the connection was dropped.
  bool onHandshakeFrame(const Frame& frame) {
    if (role_ == ConnectionRole::Accepted) {
      std::string_view presented(reinterpret_cast<const char*>(frame.payload.data()),
                                 frame.payload.size());
      if (!tokensMatch(core_.config.token, presented)) {
        refuseHandshake(socket_.native_handle(), "wrong cluster token");
        endReading("wrong cluster token", /*ioThread=*/true);
        return false;
      }
      enqueue(FrameType::HelloAck, {});
    } else if (frame.type == FrameType::HelloRefused) {
      std::string reason(frame.payload.begin(), frame.payload.end());
      for (char& c : reason)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
      refusedByPeer_ = true;
      endReading("refused the handshake: " + reason, /*ioThread=*/true);
      return false;
    }
    authenticated_ = true;
    {
      std::lock_guard<std::mutex> guard(writeMutex_);
      directWrites_ = true;
    }
    handshakeTimer_.cancel();
    if (core_.config.receivableHere) {
      std::lock_guard<std::mutex> guard(core_.readableMutex);
      core_.readable.push_back(this);
    }
    notifyWaiters("");
    return true;
  }

  TransportCore& core_;
  tcp::socket socket_;
  asio::steady_timer handshakeTimer_;
  const ConnectionRole role_;
  const std::string peerName_;
  bool authenticated_ = false;
  bool refusedByPeer_ = false;  // it answered our Hello with HelloRefused
  bool closed_ = false;
  // Reading, by whoever holds the read turn: a request for the turn adds
  // one to readTurns_, and the thread whose request found it 0 holds it.
  std::atomic<uint32_t> readTurns_{0};
  // Whether asio's report of an arrival has fired and not been asked for
  // again (awaitReadable()): set before that report asks for the turn, taken
  // by whoever lets go of the turn next.
  std::atomic<bool> waitParked_{false};
  // Set by the holder of the read turn from the moment it reads a payload
  // of at least kParkingPayloadBytes until it lets go of the turn: a report
  // of arrivals meanwhile leaves the wait parked (awaitReadable()).
  std::atomic<bool> landingLongPayload_{false};
  // Bytes read ahead, from stagedBegin_ to stagedEnd_ (takeBytes()).
  std::unique_ptr<uint8_t[]> staging_;
  size_t stagedBegin_ = 0;
  size_t stagedEnd_ = 0;
  // The last fill of the staging buffer in this readFrames() call took
  // less than it could: the socket had no more then (takeBytes()).
  bool lastFillShort_ = false;
  FrameHeaderBytes headerBytes_{};
  size_t headerHave_ = 0;
  // header_ is accepted and its payload (payloadHave_ of its bytes read
  // into payloadInto_, a placed buffer or payload_) is being read.
  bool headerTaken_ = false;
  FrameHeader header_;
  uint8_t* payloadInto_ = nullptr;
  uint64_t payloadHave_ = 0;
  bool placed_ = false;
  std::vector<uint8_t> payload_;
  std::deque<OutboundFrame> outbound_;
  std::vector<asio::const_buffer> writeBuffers_;
  bool writing_ = false;
  // Shared with sending threads, under writeMutex_: whether senders may
  // write to the socket themselves (authenticated, not closed), and how
  // many frames the I/O thread holds.
  std::mutex writeMutex_;
  bool directWrites_ = false;
  size_t framesAtIoThread_ = 0;
  // The batch (sendBatched()): batchBytes_ of whole encoded frames.
  // batched_ tells flushBatch() whether to take the mutex at all.
  std::unique_ptr<uint8_t[]> batch_;
  size_t batchBytes_ = 0;
  size_t batchCapacity_ = 0;
  std::atomic<bool> batched_{false};
  // Shared with sending threads.
  std::atomic<uint64_t> queuedBytes_{0};
  std::atomic<bool> gone_{false};
  std::atomic<int> waitingSenders_{0};
  std::mutex roomMutex_;
  std::condition_variable room_;
  std::vector<HandshakeWaiter> waiters_;
};

void TransportCore::forget(AsioConnection* connection) {
  auto self = std::static_pointer_cast<AsioConnection>(connection->shared_from_this());
  if (live.erase(self) && connection->role() == ConnectionRole::Accepted) --acceptedCount;
  for (auto it = peersByAddress.begin(); it != peersByAddress.end(); ++it) {
    if (it->second == self) {
      peersByAddress.erase(it);
      break;
    }
  }
}

}  // namespace

class Transport::Impl {
 public:
  explicit Impl(TransportConfig config)
      : core(std::move(config)), work(asio::make_work_guard(core.io)),
        thread([this] { core.io.run(); }) {}

  ~Impl() {
    runOnIoThread([this] {
      closeAcceptor();
      std::set<std::shared_ptr<AsioConnection>> connections = core.live;
      for (const std::shared_ptr<AsioConnection>& connection : connections) connection->drop("");
    });
    work.reset();
    core.io.stop();
    thread.join();
  }

  // Runs `task` on the I/O thread and waits for it; never call it from there.
  void runOnIoThread(std::function<void()> task) {
    std::promise<void> done;
    asio::post(core.io, [&] {
      task();
      done.set_value();
    });
    done.get_future().wait();
  }

  void closeAcceptor() {
    if (!acceptor) return;
    asio::error_code ignored;
    acceptor->close(ignored);
    acceptor.reset();
  }

  void acceptNext() {
    if (!acceptor) return;
    acceptor->async_accept([this](const asio::error_code& error, tcp::socket socket) {
      if (error == asio::error::operation_aborted || !acceptor) return;
      if (!error) admit(std::move(socket));
      acceptNext();
    });
  }

  void admit(tcp::socket socket) {
    asio::error_code endpointError;
    tcp::endpoint remote = socket.remote_endpoint(endpointError);
    if (endpointError) return;
    if (core.acceptedCount >= core.config.maxAcceptedConnections) {
      refuseHandshake(socket.native_handle(),
                      "already " + std::to_string(core.acceptedCount) + " connections");
      core.log("refused connection from " + endpointName(remote) + ": already " +
               std::to_string(core.acceptedCount) + " connections");
      return;
    }
    auto connection = std::make_shared<AsioConnection>(core, std::move(socket),
                                                       ConnectionRole::Accepted,
                                                       endpointName(remote));
    core.live.insert(connection);
    ++core.acceptedCount;
    connection->startAccepted();
  }

  TransportCore core;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::optional<tcp::acceptor> acceptor;
  uint16_t port = 0;
  std::thread thread;
};

Transport::Transport(TransportConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}

Transport::~Transport() = default;

bool Transport::flush(std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    bool queued = false;
    impl_->runOnIoThread([&] {
      for (const std::shared_ptr<AsioConnection>& connection : impl_->core.live)
        connection->flushBatch();
      for (const std::shared_ptr<AsioConnection>& connection : impl_->core.live)
        queued = queued || connection->hasQueuedFrames();
    });
    if (!queued) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void Transport::receiveHere() {
  TransportCore& core = impl_->core;
  if (!core.config.receivableHere) return;
  std::unique_lock<std::mutex> lock(core.readableMutex, std::try_to_lock);
  if (!lock.owns_lock()) return;
  handlingFramesHere = true;
  for (AsioConnection* connection : core.readable) connection->readHere();
  handlingFramesHere = false;
}

void Transport::startReadingHere() {
  TransportCore& core = impl_->core;
  if (!core.config.receivableHere) return;
  std::lock_guard<std::mutex> guard(core.readersHereMutex);
  if (core.readersHere++ > 0 || core.marksRaised) return;
  core.marksRaised = true;
  std::lock_guard<std::mutex> readableGuard(core.readableMutex);
  for (AsioConnection* connection : core.readable) connection->signalArrivals(false);
}

namespace {

// With core.readersHereMutex held and no thread reading here: arrivals
// signal readers again, and what was left unread wakes the I/O thread.
void restoreMarks(TransportCore& core) {
  core.marksRaised = false;
  core.restoreDue = false;
  std::lock_guard<std::mutex> readableGuard(core.readableMutex);
  for (AsioConnection* connection : core.readable) {
    connection->signalArrivals(true);
    connection->armParkedWait();
  }
}

// On the I/O thread: takes the marks back once no stretch has started for
// config.marksLinger since the last lingering stop, or else looks again
// then.
void expireLingeringMarks(TransportCore& core) {
  std::lock_guard<std::mutex> guard(core.readersHereMutex);
  if (!core.marksRaised) {
    core.lingerTimerArmed = false;
    return;
  }
  auto due = core.lastLingeringStop + core.config.marksLinger;
  if (core.readersHere == 0 && std::chrono::steady_clock::now() >= due) {
    core.lingerTimerArmed = false;
    return restoreMarks(core);
  }
  core.lingerTimer.expires_at(core.readersHere == 0 ? due
                                                    : std::chrono::steady_clock::now() +
                                                          core.config.marksLinger);
  core.lingerTimer.async_wait([&core](const asio::error_code& error) {
    if (!error) expireLingeringMarks(core);
  });
}

}  // namespace

void Transport::stopReadingHere(bool mayLinger) {
  TransportCore& core = impl_->core;
  if (!core.config.receivableHere) return;
  std::lock_guard<std::mutex> guard(core.readersHereMutex);
  if (!mayLinger) core.restoreDue = true;
  if (--core.readersHere > 0) return;
  if (core.restoreDue || !core.marksRaised) return restoreMarks(core);
  core.lastLingeringStop = std::chrono::steady_clock::now();
  if (core.lingerTimerArmed) return;
  core.lingerTimerArmed = true;
  asio::post(core.io, [&core] {
    std::lock_guard<std::mutex> guard(core.readersHereMutex);
    core.lingerTimer.expires_at(core.lastLingeringStop + core.config.marksLinger);
    core.lingerTimer.async_wait([&core](const asio::error_code& error) {
      if (!error) expireLingeringMarks(core);
    });
  });
}

void Transport::closeConnections() {
  impl_->runOnIoThread([this] {
    std::set<std::shared_ptr<AsioConnection>> connections = impl_->core.live;
    for (const std::shared_ptr<AsioConnection>& connection : connections) connection->drop("");
  });
}

bool Transport::listen(const std::string& address, uint16_t port, std::string& error) {
  asio::error_code code;
  asio::ip::address ip = asio::ip::make_address(address, code);
  if (code) {
    error = "'" + address + "' is not an IP address";
    return false;
  }
  bool listening = false;
  impl_->runOnIoThread([&] {
    tcp::acceptor acceptor(impl_->core.io);
    tcp::endpoint endpoint(ip, port);
    acceptor.open(endpoint.protocol(), code);
    if (!code) acceptor.set_option(tcp::acceptor::reuse_address(true), code);
    if (!code) sizeSocketBuffers(acceptor);
    if (!code) acceptor.bind(endpoint, code);
    if (!code) acceptor.listen(asio::socket_base::max_listen_connections, code);
    if (code) {
      error = "cannot listen on " + endpointName(endpoint) + ": " + code.message();
      return;
    }
    impl_->port = acceptor.local_endpoint().port();
    impl_->acceptor.emplace(std::move(acceptor));
    impl_->acceptNext();
    listening = true;
  });
  return listening;
}

uint16_t Transport::listeningPort() const { return impl_->port; }

void Transport::stopListening() {
  impl_->runOnIoThread([this] { impl_->closeAcceptor(); });
}

std::shared_ptr<Connection> Transport::connectionTo(const std::string& address, uint16_t port,
                                                    std::string& error, bool* refused) {
  asio::error_code code;
  asio::ip::address ip = asio::ip::make_address(address, code);
  if (code) {
    error = "'" + address + "' is not an IP address";
    return nullptr;
  }
  tcp::endpoint endpoint(ip, port);
  std::string key = endpointName(endpoint);
  struct Outcome {
    std::shared_ptr<Connection> connection;
    std::string failure;
    bool refused = false;
  };
  std::promise<Outcome> outcome;
  HandshakeWaiter waiter = [&outcome](std::shared_ptr<Connection> connection,
                                      const std::string& failure, bool refused) {
    outcome.set_value({std::move(connection), failure, refused});
  };
  asio::post(impl_->core.io, [&, waiter] {
    TransportCore& core = impl_->core;
    auto existing = core.peersByAddress.find(key);
    if (existing != core.peersByAddress.end()) {
      if (existing->second->authenticated())
        waiter(existing->second, "", false);
      else
        existing->second->addWaiter(waiter);
      return;
    }
    auto connection = std::make_shared<AsioConnection>(core, tcp::socket(core.io),
                                                       ConnectionRole::Connected, key);
    core.live.insert(connection);
    core.peersByAddress[key] = connection;
    connection->addWaiter(waiter);
    connection->startConnecting(endpoint);
  });
  auto [connection, failure, refusedHere] = outcome.get_future().get();
  if (!connection)
    error = refusedHere ? key + " " + failure : "cannot reach " + key + ": " + failure;
  if (refused) *refused = !connection && refusedHere;
  return connection;
}

}  // namespace synergy::transport

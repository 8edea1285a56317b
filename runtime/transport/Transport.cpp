//===- Transport.cpp - Framed, authenticated host-to-host connections -----===//
//
// This file implements Transport.h over asio TCP sockets. One I/O thread runs
// an io_context; every connection's state is touched only on that thread, so
// connections need no locks. send() and connectionTo() post work to
// it from any thread.
//
// Reading a frame is two exact reads: the 16 header bytes, then, only after
// decodeFrameHeader accepted the header against the type's maximum, the
// payload, of exactly the stated length, into the buffer the PayloadPlacer
// names or else into the Frame's own. Writing gathers header,
// payload and lent bytes, of as many queued frames as one writev takes, in
// one async_write, so a payload is never copied into a frame.
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
// The queue bound is kept per connection in an atomic count of queued
// payload bytes: senders add to it before they post, the I/O thread takes
// off what it has written or dropped, and wakes waiting senders through a
// condition variable only when some are waiting.
//
//===----------------------------------------------------------------------===//
#include "transport/Transport.h"

#include <asio.hpp>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
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

// The outcome of a handshake, for connectionTo's waiters.
using HandshakeWaiter = std::function<void(std::shared_ptr<Connection>, const std::string& error)>;

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
};

// The most pieces (header, payload, lent bytes: three a frame) one write
// gathers.
constexpr size_t kMaxWriteVectors = 64;
// What each socket asks for as send and receive buffer (the kernel caps it
// at net.core.wmem_max/rmem_max): a sender then hands a large message to
// the kernel in one call, and the receiver takes it in few wake-ups.
constexpr int kSocketBufferBytes = 4 << 20;

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
    for (LentFrame& lentFrame : lentFrames)
      frames.push_back({encodeFrameHeader(lentFrame.type, lentFrame.head.size() + lentFrame.lentBytes),
                        std::move(lentFrame.head), lentFrame.lent, lentFrame.lentBytes});
    std::unique_lock<std::mutex> lock(writeMutex_);
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

  const std::string& peerName() const override { return peerName_; }

  ConnectionRole role() const { return role_; }
  bool hasQueuedFrames() const { return !closed_ && (writing_ || !outbound_.empty()); }
  bool authenticated() const { return authenticated_; }
  void addWaiter(HandshakeWaiter waiter) { waiters_.push_back(std::move(waiter)); }

  void startAccepted() {
    armHandshakeTimer();
    setNoDelay();
    readHeader();
  }



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
      self->readHeader();
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
      // No sender may write to the descriptor once it is closed (and
      // perhaps reused).
      std::lock_guard<std::mutex> guard(writeMutex_);
      directWrites_ = false;
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
    const uint8_t* lent = nullptr;
    size_t lentBytes = 0;
    // Set on the last frame of a sendLent() group.
    std::function<void()> released;
    // Leading bytes a sender already wrote itself.
    size_t written = 0;

    size_t bytes() const { return header.size() + payload.size() + lentBytes; }
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
      add(lent, lentBytes);
    }
  };

  struct Piece {
    const uint8_t* data;
    size_t size;
  };

  // With writeMutex_ held: writes `count` frames straight to the socket if
  // the I/O thread holds none, as far as the socket takes them without
  // waiting. Returns how many were written whole; the first one not
  // written whole has its `written` set.
  size_t writeDirectly(OutboundFrame* frames, size_t count) {
    if (!directWrites_ || framesAtIoThread_ != 0) return 0;
    std::vector<Piece> pieces;
    for (size_t i = 0; i < count; ++i) frames[i].unwrittenPieces(pieces);
    size_t first = 0;  // the first piece not written whole
    while (first < pieces.size()) {
      iovec vectors[kMaxWriteVectors];
      size_t used = 0;
      for (size_t i = first; i < pieces.size() && used < kMaxWriteVectors; ++i)
        vectors[used++] = {const_cast<uint8_t*>(pieces[i].data), pieces[i].size};
      msghdr message{};
      message.msg_iov = vectors;
      message.msg_iovlen = used;
      ssize_t sent = ::sendmsg(socket_.native_handle(), &message, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      // A full socket waits for the I/O thread; a broken one is found and
      // reported by its write.
      if (sent <= 0) break;
      for (size_t left = size_t(sent); left > 0;) {
        size_t taken = std::min(left, pieces[first].size);
        pieces[first].data += taken;
        pieces[first].size -= taken;
        left -= taken;
        if (pieces[first].size == 0) ++first;
      }
      while (first < pieces.size() && pieces[first].size == 0) ++first;
    }
    size_t unwritten = 0;
    for (size_t i = first; i < pieces.size(); ++i) unwritten += pieces[i].size;
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
    if (queuedBytes_.load() < bound || core_.io.get_executor().running_in_this_thread()) return;
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
      waiter(error.empty() ? self() : nullptr, error);
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
      if (frames > 0 && writeBuffers_.size() + 3 > kMaxWriteVectors) break;
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

  void readHeader() {
    asio::async_read(
        socket_, asio::buffer(headerBytes_),
        [self = self()](const asio::error_code& error, size_t bytes) {
          if (self->closed_) return;
          if (error == asio::error::eof && bytes == 0)
            return self->drop(self->authenticated_ ? "" : "closed before the handshake");
          if (error == asio::error::eof)
            return self->drop("truncated frame header (" + std::to_string(bytes) + " of " +
                              std::to_string(kFrameHeaderBytes) + " bytes)");
          if (error) return self->drop("read failed: " + error.message());
          self->onHeader();
        });
  }

  void onHeader() {
    std::string reason;
    if (!decodeFrameHeader(headerBytes_, header_, reason)) return drop(reason);
    if (!authenticated_) {
      FrameType expected =
          role_ == ConnectionRole::Accepted ? FrameType::Hello : FrameType::HelloAck;
      if (header_.type != expected)
        return drop(std::string("first frame is ") + frameTypeName(header_.type) + ", not " +
                    frameTypeName(expected));
    }
    if (header_.payloadBytes == 0) {
      payload_.clear();
      return onFrame();
    }
    if (authenticated_ && core_.config.placePayload && header_.type != FrameType::Ping &&
        header_.type != FrameType::Hello && header_.type != FrameType::HelloAck) {
      if (uint8_t* place = core_.config.placePayload(*this, header_.type, header_.payloadBytes))
        return readPayload(place, /*placed=*/true);
    }
    payload_.assign(header_.payloadBytes, 0);
    readPayload(payload_.data(), /*placed=*/false);
  }

  // Reads the payload of the frame whose header was just accepted into
  // `into`, in one read of all its bytes.
  void readPayload(uint8_t* into, bool placed) {
    asio::async_read(socket_, asio::buffer(into, header_.payloadBytes),
                     [self = self(), placed](const asio::error_code& error, size_t bytes) {
                       if (self->closed_) return;
                       if (error == asio::error::eof)
                         return self->drop("truncated frame (" + std::to_string(bytes) + " of " +
                                           std::to_string(self->header_.payloadBytes) +
                                           " payload bytes)");
                       if (error) return self->drop("read failed: " + error.message());
                       if (placed) return self->onPlacedFrame();
                       self->onFrame();
                     });
  }

  void onPlacedFrame() {
    std::string reason = std::string("unexpected ") + frameTypeName(header_.type) + " frame";
    if (!core_.config.onPlacedFrame(*this, header_.type, header_.payloadBytes, reason))
      return drop(reason);
    if (!closed_) readHeader();
  }

  void onFrame() {
    Frame frame{header_.type, std::move(payload_)};
    payload_ = {};
    if (!authenticated_) {
      if (!onHandshakeFrame(frame)) return;
    } else if (frame.type == FrameType::Hello || frame.type == FrameType::HelloAck) {
      return drop(std::string("unexpected ") + frameTypeName(frame.type) + " after the handshake");
    } else if (frame.type == FrameType::Ping) {
      enqueue(FrameType::Pong, std::move(frame.payload));
    } else {
      std::string reason = std::string("unexpected ") + frameTypeName(frame.type) + " frame";
      if (!core_.config.onFrame || !core_.config.onFrame(*this, std::move(frame), reason))
        return drop(reason);
    }
    if (!closed_) readHeader();
  }

  // Completes the handshake; false when the connection was dropped.
  bool onHandshakeFrame(const Frame& frame) {
    if (role_ == ConnectionRole::Accepted) {
      std::string_view presented(reinterpret_cast<const char*>(frame.payload.data()),
                                 frame.payload.size());
      if (!tokensMatch(core_.config.token, presented)) {
        drop("wrong cluster token");
        return false;
      }
      enqueue(FrameType::HelloAck, {});
    }
    authenticated_ = true;
    {
      std::lock_guard<std::mutex> guard(writeMutex_);
      directWrites_ = true;
    }
    handshakeTimer_.cancel();
    notifyWaiters("");
    return true;
  }

  TransportCore& core_;
  tcp::socket socket_;
  asio::steady_timer handshakeTimer_;
  const ConnectionRole role_;
  const std::string peerName_;
  bool authenticated_ = false;
  bool closed_ = false;
  FrameHeaderBytes headerBytes_{};
  FrameHeader header_;
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
        queued = queued || connection->hasQueuedFrames();
    });
    if (!queued) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
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
                                                    std::string& error) {
  asio::error_code code;
  asio::ip::address ip = asio::ip::make_address(address, code);
  if (code) {
    error = "'" + address + "' is not an IP address";
    return nullptr;
  }
  tcp::endpoint endpoint(ip, port);
  std::string key = endpointName(endpoint);
  std::promise<std::pair<std::shared_ptr<Connection>, std::string>> outcome;
  HandshakeWaiter waiter = [&outcome](std::shared_ptr<Connection> connection,
                                      const std::string& failure) {
    outcome.set_value({std::move(connection), failure});
  };
  asio::post(impl_->core.io, [&, waiter] {
    TransportCore& core = impl_->core;
    auto existing = core.peersByAddress.find(key);
    if (existing != core.peersByAddress.end()) {
      if (existing->second->authenticated())
        waiter(existing->second, "");
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
  auto [connection, failure] = outcome.get_future().get();
  if (!connection) error = "cannot reach " + key + ": " + failure;
  return connection;
}

}  // namespace synergy::transport

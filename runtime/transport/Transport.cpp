//===- Transport.cpp - Framed, authenticated host-to-host connections -----===//
//
// This file implements Transport.h over asio TCP sockets. One I/O thread runs
// an io_context; every connection's state is touched only on that thread, so
// connections need no locks. send() and connectionTo() post work to
// it from any thread.
//
// Reading a frame is two exact reads: the 16 header bytes, then, only after
// decodeFrameHeader accepted the header against the type's maximum, a
// payload buffer of exactly the stated length. Writing gathers header,
// payload and lent bytes in one async_write, so a payload is never copied
// into a frame.
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
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <thread>

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
    queuedBytes_.fetch_add(payload.size());
    asio::post(core_.io, [self = self(), type, payload = std::move(payload)]() mutable {
      self->enqueueCounted(type, std::move(payload));
    });
  }

  void sendLent(std::vector<LentFrame> frames, std::function<void()> released) override {
    waitForRoom();
    uint64_t headBytes = 0;
    for (const LentFrame& frame : frames) headBytes += frame.head.size();
    queuedBytes_.fetch_add(headBytes);
    asio::post(core_.io, [self = self(), frames = std::move(frames),
                          released = std::move(released)]() mutable {
      self->enqueueLent(std::move(frames), std::move(released));
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
  };

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

  // A frame left the queue, written or not: its bytes leave the count, and
  // what it borrowed goes back.
  void finish(OutboundFrame& frame) {
    queuedBytes_.fetch_sub(frame.payload.size());
    frame.payload = {};
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
    queuedBytes_.fetch_add(payload.size());
    enqueueCounted(type, std::move(payload));
  }

  // Queues a frame whose bytes queuedBytes_ already counts.
  void enqueueCounted(FrameType type, std::vector<uint8_t> payload) {
    if (closed_) {
      queuedBytes_.fetch_sub(payload.size());
      return;
    }
    outbound_.push_back({encodeFrameHeader(type, payload.size()), std::move(payload)});
    if (!writing_) writeNext();
  }

  void enqueueLent(std::vector<LentFrame> frames, std::function<void()> released) {
    for (LentFrame& lentFrame : frames) {
      OutboundFrame frame{encodeFrameHeader(lentFrame.type, lentFrame.head.size() + lentFrame.lentBytes),
                          std::move(lentFrame.head), lentFrame.lent, lentFrame.lentBytes, nullptr};
      if (closed_)
        finish(frame);
      else
        outbound_.push_back(std::move(frame));
    }
    if (closed_) {
      if (released) released();
      return;
    }
    if (frames.empty()) {
      if (released) released();
      return;
    }
    outbound_.back().released = std::move(released);
    if (!writing_) writeNext();
  }

  void writeNext() {
    if (closed_ || outbound_.empty()) {
      writing_ = false;
      return;
    }
    writing_ = true;
    OutboundFrame& frame = outbound_.front();
    std::array<asio::const_buffer, 3> buffers{asio::buffer(frame.header),
                                              asio::buffer(frame.payload),
                                              asio::buffer(frame.lent, frame.lentBytes)};
    asio::async_write(socket_, buffers,
                      [self = self()](const asio::error_code& error, size_t) {
                        if (self->closed_) return;
                        if (error) return self->drop("write failed: " + error.message());
                        OutboundFrame written = std::move(self->outbound_.front());
                        self->outbound_.pop_front();
                        self->finish(written);
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
    payload_.assign(header_.payloadBytes, 0);
    if (payload_.empty()) return onFrame();
    asio::async_read(socket_, asio::buffer(payload_),
                     [self = self()](const asio::error_code& error, size_t bytes) {
                       if (self->closed_) return;
                       if (error == asio::error::eof)
                         return self->drop("truncated frame (" + std::to_string(bytes) + " of " +
                                           std::to_string(self->payload_.size()) +
                                           " payload bytes)");
                       if (error) return self->drop("read failed: " + error.message());
                       self->onFrame();
                     });
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
  bool writing_ = false;
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

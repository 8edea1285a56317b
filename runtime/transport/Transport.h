//===- Transport.h - Framed, authenticated host-to-host connections -------===//
//
// A Transport is one host's end of the cluster network: an I/O thread that
// accepts connections on the host's own address, opens connections to other
// hosts, and moves frames (FrameTypes.h) over them. It keeps one connection
// per peer host, however many granules talk across it.
//
// Every connection starts with a handshake: the connecting side sends Hello
// with the cluster token, the accepting side answers HelloAck, and only then
// are other frames delivered. A connection that presents a wrong token, sends
// a bad or oversized header, stops in the middle of a frame, or stays silent
// past the handshake deadline is dropped and logged; the others carry on.
// A wrong token, and a connection over the accepting side's limit, are
// answered with HelloRefused before the close, so that the connecting side
// can tell a refusal from a host that went away.
//
// send() writes the frame at once when the connection has nothing queued
// and the socket takes it all; otherwise it queues the frame and the I/O
// thread writes it whenever the peer's socket accepts data. Either way a
// sender does not wait for a busy peer. The queue
// of each connection is bounded (TransportConfig::maxQueuedBytes): a thread
// that sends while the queue already holds that many payload bytes waits
// until the I/O thread has written enough of them, so a fast sender cannot
// fill the host's memory. The I/O thread itself never waits. Large payloads
// need not be copied at all: sendLent() writes bytes the caller lends
// straight from where they are, and tells the caller when it is done with
// them. A sender that knows more frames follow at once (a rank's burst of
// nonblocking sends) may batch them (sendBatched()), so that the burst
// costs one write on this host, and one read on the peer's, instead of one
// each per frame. Ping frames are answered with a Pong by the transport
// itself; every other frame goes to the FrameHandler, on the I/O thread.
//
// A handler that keeps some frames' data in buffers of its own (an MPI
// message's, which a receive copies out of) may place their payloads: the
// PayloadPlacer names, for a frame whose header was accepted, the buffer to
// read its payload into, and the PlacedFrameHandler takes the frame once it
// is there. The payload then goes from the socket to its final place with
// no byte of it zero-filled, and all but its first bytes (those read along
// with its header, at most 16 KiB) straight there.
//
// A thread that waits for frames (an MPI rank) may read them itself
// (receiveHere()) instead of waiting for the I/O thread to read them and
// wake it: a message then costs the receiving host one thread wake-up
// instead of two. The handlers then run on that thread, for the frame
// types the config allows, one frame at a time and in each connection's
// order, as they would on the I/O thread. While some thread says it will
// keep calling receiveHere() (startReadingHere() to stopReadingHere()),
// arrivals do not wake the I/O thread at all: that thread reads them, and
// a message costs the receiving host no wake-up; what arrives after the
// last such thread stopped, or was left unread then, wakes the I/O thread
// as before.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "transport/FrameTypes.h"
#include "util/FunctionRef.h"

namespace synergy::transport {

struct Frame {
  FrameType type = FrameType::Ping;
  std::vector<uint8_t> payload;
};

// Bytes a caller lends the transport, which reads them in place.
struct LentBytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// A frame whose payload is `head` followed by the `lent` pieces in order:
// several pieces gather a payload whose data lies in several places (the
// blocks of several ranks' buffers) into one frame, with no copy.
struct LentFrame {
  FrameType type = FrameType::Ping;
  std::vector<uint8_t> head;
  std::vector<LentBytes> lent;

  size_t lentBytes() const {
    size_t bytes = 0;
    for (const LentBytes& piece : lent) bytes += piece.size;
    return bytes;
  }
};

// One authenticated connection to a peer host. Handlers that keep a
// connection beyond their call hold it through shared_from_this().
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  virtual ~Connection() = default;
  // Queues a frame; safe from any thread. Returns at once unless the
  // connection's queue is full (see the file comment). A payload over
  // maxPayloadBytes(type) is a caller bug.
  virtual void send(FrameType type, std::vector<uint8_t> payload) = 0;
  // Queues `frames` back to back: no other frame of this connection comes
  // between them. Their lent bytes must stay valid and unchanged until
  // `released` has run; it runs once, when all of them have been written
  // or the connection has closed: on the I/O thread, or within this call
  // when the socket took them all at once. Only the heads count against
  // the queue's bound.
  virtual void sendLent(std::vector<LentFrame> frames, std::function<void()> released) = 0;
  // Appends a frame whose `payloadBytes` (at most maxPayloadBytes(type))
  // `fill` writes in place to the connection's batch: frames that a burst
  // of nonblocking sends makes go out together, in one write, instead of
  // one write each. The batch is written at flushBatch(), before the
  // connection's next send() or sendLent() from any thread (so no frame
  // overtakes it), and as soon as it holds kBatchBytes. Safe from any
  // thread; waits for room as send() does.
  virtual void sendBatched(FrameType type, size_t payloadBytes,
                           util::FunctionRef<void(uint8_t*)> fill) = 0;
  // Writes the batch, if any, as send() would a frame.
  virtual void flushBatch() = 0;
  // "address:port" of the peer, for messages.
  virtual const std::string& peerName() const = 0;

  // The batch bytes at which sendBatched() writes the batch without waiting
  // for flushBatch(): about what loopback TCP takes in one segment, past
  // which a bigger batch saves nothing.
  static constexpr size_t kBatchBytes = 64 << 10;
};

// Called on the I/O thread for each frame after the handshake (or on a
// thread in Transport::receiveHere(), for the types the config allows; so
// are the two below). Returning false with a `reason` drops the connection
// and logs the reason.
using FrameHandler = std::function<bool(Connection& from, Frame&& frame, std::string& reason)>;
// Called on the I/O thread for each frame after the handshake, once its
// header is accepted and before its payload is read: returns where the
// `payloadBytes` go, which must stay writable until the PlacedFrameHandler
// has run for this frame or the connection has closed; or null for an
// ordinary Frame to the FrameHandler. Never called for handshake or Ping
// frames, nor for empty payloads.
using PayloadPlacer =
    std::function<uint8_t*(Connection& from, FrameType type, uint64_t payloadBytes)>;
// Called on the I/O thread when a placed payload has been read whole.
// Returning false with a `reason` drops the connection and logs the reason.
using PlacedFrameHandler = std::function<bool(Connection& from, FrameType type,
                                              uint64_t payloadBytes, std::string& reason)>;
// Called on the I/O thread when an authenticated connection closes, for
// whatever reason.
using ClosedHandler = std::function<void(Connection& connection)>;
// Receives one line per dropped or refused connection.
using TransportLog = std::function<void(const std::string& line)>;
// Whether a thread in Transport::receiveHere() may handle frames of a type.
using ReceivableHere = std::function<bool(FrameType type)>;

struct TransportConfig {
  std::string token;
  FrameHandler onFrame;
  // Both or neither.
  PayloadPlacer placePayload;
  PlacedFrameHandler onPlacedFrame;
  ClosedHandler onClosed;
  TransportLog log;
  // How long a new connection may take to complete its handshake.
  unsigned handshakeSeconds = 5;
  // Accepted connections beyond this many are refused at once, so a flood
  // of idle connections cannot exhaust descriptors or memory.
  unsigned maxAcceptedConnections = 256;
  // The payload bytes one connection may hold queued before a sending
  // thread waits; a single larger frame still goes, alone.
  uint64_t maxQueuedBytes = 64ull << 20;
  // The frame types whose handlers (FrameHandler, PayloadPlacer and
  // PlacedFrameHandler alike) may run on a thread in receiveHere(), which
  // they must then never block; null for none. Handshake, Ping and Pong
  // frames stay on the I/O thread whatever it says.
  ReceivableHere receivableHere;
  // How long raised low-water marks outlast a stop that lets them
  // (stopReadingHere(true)).
  std::chrono::microseconds marksLinger{500};
};

class Transport {
 public:
  explicit Transport(TransportConfig config);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Accepts connections on exactly `address` (an IPv4 or IPv6 literal) and
  // `port`; port 0 picks a free one. On failure returns false with `error`.
  bool listen(const std::string& address, uint16_t port, std::string& error);
  // The port listen() bound.
  uint16_t listeningPort() const;
  // Stops accepting new connections; established ones stay.
  void stopListening();

  // Waits until every frame queued so far has been written to its socket
  // (or its connection has closed), for at most `limit`: a process about
  // to exit calls it so that its last messages reach their hosts. False
  // when frames were still queued at the limit.
  bool flush(std::chrono::milliseconds limit);

  // Reads and handles, on the calling thread, the frames that have arrived
  // on the authenticated connections, as the I/O thread would have: in each
  // connection's order, until the socket has no more bytes. A frame of a
  // type config.receivableHere refuses, and the end of a connection, are
  // left to the I/O thread, which then reads on. Never waits: returns at
  // once when another thread is reading. Sends that handlers make here do
  // not wait for room in a queue.
  void receiveHere();

  // Brackets a stretch in which the calling thread calls receiveHere()
  // again and again (a rank polling for a message): from the first such
  // thread's start to the last one's stop, data arriving on the
  // connections receiveHere() reads does not wake the I/O thread. At the
  // last stop, whatever is left unread wakes it, so nothing waits for the
  // next reader. The I/O thread still learns at once of a connection's end
  // or error. Pairs may overlap across threads; the stretch must be short
  // (the ranks' poll budget), since frames only the I/O thread may handle
  // wait for the reading thread to meet them. A stop with `mayLinger`
  // (its thread goes back to work, and will soon poll again) leaves
  // arrivals unsignalled for a while longer (config.marksLinger), unless
  // another stretch that overlapped it stopped without: a stretch that
  // starts meanwhile then costs no system call, and reads what came. A
  // thread that sleeps next must stop without it.
  void startReadingHere();
  void stopReadingHere(bool mayLinger = false);

  // Closes every connection and waits until the I/O thread has let go of
  // everything lent to it (sendLent's `released` has run for each).
  void closeConnections();

  // The connection to the host at address:port, opened and authenticated
  // first if there is none yet. Blocks until the peer's HelloAck, or returns
  // nullptr with `error`; `refused`, when given, is set when the peer
  // answered with HelloRefused (it is there and said no), as against one
  // that could not be reached or closed before the handshake.
  std::shared_ptr<Connection> connectionTo(const std::string& address, uint16_t port,
                                           std::string& error, bool* refused = nullptr);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace synergy::transport

//===- TransportTest.cpp - Handshake, ping-pong and asynchronous sends ----===//
//
// Two Transports in one process over 127.0.0.1: one listens, the other
// connects. Checks the token handshake both ways, that connectionTo keeps
// one connection per peer, that Ping is answered with the same payload, and
// that send() returns while the receiving side is busy.
//
//===----------------------------------------------------------------------===//
#include "transport/Transport.h"

#include <condition_variable>
#include <future>
#include <gtest/gtest.h>
#include <mutex>

using namespace synergy::transport;

namespace {

const std::string kToken = "test-token-0123456789";

// Frames and log lines seen by one Transport, readable from the test thread.
class Recorder {
 public:
  FrameHandler handler() {
    return [this](Connection&, Frame&& frame, std::string&) {
      std::lock_guard<std::mutex> lock(mutex_);
      frames_.push_back(std::move(frame));
      changed_.notify_all();
      return true;
    };
  }
  TransportLog log() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(line);
      changed_.notify_all();
    };
  }
  // Waits (bounded, so a bug fails rather than hangs) for `count` frames.
  std::vector<Frame> waitForFrames(size_t count) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(60), [&] { return frames_.size() >= count; });
    return frames_;
  }
  std::vector<std::string> waitForLines(size_t count) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(60), [&] { return lines_.size() >= count; });
    return lines_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Frame> frames_;
  std::vector<std::string> lines_;
};

TEST(TransportTest, PingIsAnsweredWithTheSamePayload) {
  Recorder server, client;
  Transport listening({.token = kToken, .onFrame = server.handler(), .log = server.log()});
  std::string error;
  ASSERT_TRUE(listening.listen("127.0.0.1", 0, error)) << error;
  Transport connecting({.token = kToken, .onFrame = client.handler(), .log = client.log()});
  std::shared_ptr<Connection> connection =
      connecting.connectionTo("127.0.0.1", listening.listeningPort(), error);
  ASSERT_TRUE(connection) << error;
  std::vector<uint8_t> payload(100000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = uint8_t(i * 7);
  connection->send(FrameType::Ping, payload);
  std::vector<Frame> frames = client.waitForFrames(1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].type, FrameType::Pong);
  EXPECT_EQ(frames[0].payload, payload);
}

TEST(TransportTest, KeepsOneConnectionPerPeer) {
  Transport listening({.token = kToken});
  std::string error;
  ASSERT_TRUE(listening.listen("127.0.0.1", 0, error)) << error;
  Transport connecting({.token = kToken});
  std::shared_ptr<Connection> first =
      connecting.connectionTo("127.0.0.1", listening.listeningPort(), error);
  std::shared_ptr<Connection> second =
      connecting.connectionTo("127.0.0.1", listening.listeningPort(), error);
  ASSERT_TRUE(first) << error;
  EXPECT_EQ(first, second);
}

TEST(TransportTest, AWrongTokenIsRefusedAndLogged) {
  Recorder server, client;
  Transport listening({.token = kToken, .onFrame = server.handler(), .log = server.log()});
  std::string error;
  ASSERT_TRUE(listening.listen("127.0.0.1", 0, error)) << error;
  Transport connecting({.token = "another-token-0123456789", .log = client.log()});
  std::shared_ptr<Connection> connection =
      connecting.connectionTo("127.0.0.1", listening.listeningPort(), error);
  EXPECT_FALSE(connection);
  std::string peer = "127.0.0.1:" + std::to_string(listening.listeningPort());
  EXPECT_EQ(error, "cannot reach " + peer + ": closed before the handshake");
  std::vector<std::string> lines = server.waitForLines(1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("dropped connection from 127.0.0.1:", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(": wrong cluster token"), std::string::npos) << lines[0];
  EXPECT_TRUE(server.waitForFrames(0).empty());
}

TEST(TransportTest, ListensOnlyWhereItIsTold) {
  Transport listening({.token = kToken});
  std::string error;
  EXPECT_FALSE(listening.listen("localhost", 0, error));
  EXPECT_EQ(error, "'localhost' is not an IP address");
}

// The receiver's handler blocks until every send has returned: if a send
// waited for the peer, this test would never finish.
TEST(TransportTest, SendsDoNotWaitForABusyPeer) {
  constexpr size_t kFrames = 48;
  constexpr size_t kFrameBytes = 1 << 20;
  std::promise<void> allSent;
  std::shared_future<void> sendsReturned = allSent.get_future().share();
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<uint8_t> firstBytes;
  FrameHandler busyHandler = [&](Connection&, Frame&& frame, std::string&) {
    sendsReturned.wait();
    std::lock_guard<std::mutex> lock(mutex);
    firstBytes.push_back(frame.payload.at(0));
    arrived.notify_all();
    return frame.payload.size() == kFrameBytes;
  };
  Transport listening({.token = kToken, .onFrame = busyHandler});
  std::string error;
  ASSERT_TRUE(listening.listen("127.0.0.1", 0, error)) << error;
  Transport connecting({.token = kToken});
  std::shared_ptr<Connection> connection =
      connecting.connectionTo("127.0.0.1", listening.listeningPort(), error);
  ASSERT_TRUE(connection) << error;
  for (size_t i = 0; i < kFrames; ++i)
    connection->send(FrameType::Pong, std::vector<uint8_t>(kFrameBytes, uint8_t(i)));
  allSent.set_value();
  std::unique_lock<std::mutex> lock(mutex);
  arrived.wait_for(lock, std::chrono::seconds(60), [&] { return firstBytes.size() == kFrames; });
  ASSERT_EQ(firstBytes.size(), kFrames);
  for (size_t i = 0; i < kFrames; ++i) EXPECT_EQ(firstBytes[i], uint8_t(i)) << "frame " << i;
}

}  // namespace

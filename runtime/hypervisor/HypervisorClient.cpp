//===- HypervisorClient.cpp - One synchronous connection to synergy-hv -----===//
//
// This file implements HypervisorClient: the transport's I/O thread puts
// each received frame (or the news of the connection's end) into a mailbox,
// and call() (or await()) waits on it. Exactly one reply is outstanding at a
// time, so the mailbox holds at most one frame besides the HvRunProgress
// frames of an open-loop run; any other unsolicited one is a protocol error
// of the peer.
//
//===----------------------------------------------------------------------===//
#include "hypervisor/HypervisorClient.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>

#include "hypervisor/HypervisorProtocol.h"
#include "transport/ClusterToken.h"
#include "transport/FrameCodec.h"

namespace synergy::hypervisor {

using transport::Frame;
using transport::FrameType;

class HypervisorClient::Mailbox {
 public:
  void put(Frame&& frame) {
    std::lock_guard<std::mutex> lock(mutex_);
    frames_.push_back(std::move(frame));
    ready_.notify_all();
  }
  void close(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closedReason_.empty())
      closedReason_ = reason;
    ready_.notify_all();
  }
  // The next frame, or nullopt and the reason once the connection closed.
  std::optional<Frame> take(std::string& reason) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !frames_.empty() || !closedReason_.empty(); });
    if (frames_.empty()) {
      reason = closedReason_;
      return std::nullopt;
    }
    Frame frame = std::move(frames_.front());
    frames_.pop_front();
    return frame;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Frame> frames_;
  std::string closedReason_;
};

HypervisorClient::HypervisorClient() : mailbox_(std::make_shared<Mailbox>()) {}

HypervisorClient::~HypervisorClient() = default;

bool parseHostPort(const std::string& text, std::string& host, uint16_t& port, bool allowAnyPort,
                   std::string& error) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    error = "expected HOST:PORT, got '" + text + "'";
    return false;
  }
  host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  std::string digits = text.substr(colon + 1);
  char* end = nullptr;
  unsigned long value = std::strtoul(digits.c_str(), &end, 10);
  if (digits.empty() || *end || digits[0] == '-' || value > 65535 || (value == 0 && !allowAnyPort)) {
    error = "bad port in '" + text + "'";
    return false;
  }
  port = uint16_t(value);
  return true;
}

std::unique_ptr<HypervisorClient> HypervisorClient::connect(const std::string& address, const std::string& tokenFile,
                                                            std::string& error) {
  std::string host;
  uint16_t port = 0;
  if (!parseHostPort(address, host, port, /*allowAnyPort=*/false, error))
    return nullptr;
  transport::TransportConfig config;
  if (!transport::readClusterToken(tokenFile, config.token, error))
    return nullptr;
  std::unique_ptr<HypervisorClient> client(new HypervisorClient);
  std::shared_ptr<Mailbox> mailbox = client->mailbox_;
  config.onFrame = [mailbox](transport::Connection&, Frame&& frame, std::string&) {
    mailbox->put(std::move(frame));
    return true;
  };
  config.onClosed = [mailbox](transport::Connection&) { mailbox->close("the hypervisor closed the connection"); };
  config.log = [mailbox](const std::string& line) { mailbox->close(line); };
  client->transport_ = std::make_unique<transport::Transport>(std::move(config));
  client->connection_ = client->transport_->connectionTo(host, port, error);
  if (!client->connection_) {
    error = "cannot reach the hypervisor at " + address + ": " + error;
    return nullptr;
  }
  auto welcome = client->call(FrameType::HvHello, PayloadWriter().u32(kHypervisorProtocolVersion).take(),
                              FrameType::HvWelcome, error);
  if (!welcome)
    return nullptr;
  return client;
}

std::optional<std::vector<uint8_t>> HypervisorClient::call(FrameType request, std::vector<uint8_t> payload,
                                                           FrameType expected, std::string& error,
                                                           std::optional<std::string>* moveTo,
                                                           const ProgressHandler* onProgress) {
  send(request, std::move(payload));
  return await(request, expected, error, moveTo, onProgress);
}

void HypervisorClient::send(FrameType request, std::vector<uint8_t> payload) {
  connection_->send(request, std::move(payload));
}

std::optional<std::vector<uint8_t>> HypervisorClient::await(FrameType request, FrameType expected,
                                                            std::string& error,
                                                            std::optional<std::string>* moveTo,
                                                            const ProgressHandler* onProgress) {
  std::optional<Frame> reply;
  for (;;) {
    std::string reason;
    reply = mailbox_->take(reason);
    if (!reply) {
      error = "lost the hypervisor during " + std::string(transport::frameTypeName(request)) + ": " + reason;
      return std::nullopt;
    }
    if (!onProgress || reply->type != FrameType::HvRunProgress ||
        !payloadLengthIsValid(uint16_t(reply->type), reply->payload.size()))
      break;
    if (!(*onProgress)(reply->payload, error))
      return std::nullopt;
  }
  if (reply->type == FrameType::HvRefused) {
    error = "the hypervisor refused " + std::string(transport::frameTypeName(request)) + ": " +
            payloadText(reply->payload);
    return std::nullopt;
  }
  if (moveTo && reply->type == FrameType::HvMoveTo &&
      payloadLengthIsValid(uint16_t(reply->type), reply->payload.size())) {
    *moveTo = payloadText(reply->payload);
    return std::vector<uint8_t>();
  }
  if (reply->type != expected || !payloadLengthIsValid(uint16_t(reply->type), reply->payload.size())) {
    error = "the hypervisor answered " + std::string(transport::frameTypeName(request)) + " with a malformed " +
            transport::frameTypeName(reply->type);
    return std::nullopt;
  }
  return std::move(reply->payload);
}

}  // namespace synergy::hypervisor

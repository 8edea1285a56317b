//===- HypervisorClient.h - One synchronous connection to synergy-hv -------===//
//
// A tenant's runtime and synergy-hv-ctl talk to the hypervisor in strict
// request/reply order: every request frame is answered by exactly one frame
// before the next is sent. HypervisorClient opens the token-authenticated
// transport connection, exchanges protocol versions (HvHello/HvWelcome), and
// then offers call(): send one frame, wait for its answer. A lost connection
// or a reply of the wrong type or length is an error naming what happened,
// never a hang: waiting ends when the transport reports the connection
// closed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transport/Transport.h"

namespace synergy::hypervisor {

class HypervisorClient {
 public:
  // Connects to `address` ("HOST:PORT", HOST an IP literal) with the token
  // in `tokenFile`; nullptr and a one-line `error` on failure.
  static std::unique_ptr<HypervisorClient> connect(const std::string& address, const std::string& tokenFile,
                                                   std::string& error);
  ~HypervisorClient();
  HypervisorClient(const HypervisorClient&) = delete;
  HypervisorClient& operator=(const HypervisorClient&) = delete;

  // Sends a request and waits for the reply, which must be of type
  // `expected` and of its record's length (HypervisorProtocol.h). An
  // HvRefused reply, a reply of another type or the connection's loss yield
  // nullopt and a one-line `error`. With `moveTo`, an HvMoveTo reply is no
  // error: it sets *moveTo to the address it names and yields an empty
  // payload. With `onProgress`, HvRunProgress frames may come before the
  // reply (an open-loop run's, protocol 6): each is handed to it, and its
  // false ends the call with the `error` it set.
  using ProgressHandler = std::function<bool(const std::vector<uint8_t>& payload, std::string& error)>;
  std::optional<std::vector<uint8_t>> call(transport::FrameType request, std::vector<uint8_t> payload,
                                           transport::FrameType expected, std::string& error,
                                           std::optional<std::string>* moveTo = nullptr,
                                           const ProgressHandler* onProgress = nullptr);
  // call() in two halves, for a tenant that sends its next open-loop
  // request before it services the traps of the last one
  // (RemoteEngine.cpp): send() sends the request, and await() waits for
  // its reply as call() does. Between the two no other request is sent.
  void send(transport::FrameType request, std::vector<uint8_t> payload);
  std::optional<std::vector<uint8_t>> await(transport::FrameType request,
                                            transport::FrameType expected, std::string& error,
                                            std::optional<std::string>* moveTo = nullptr,
                                            const ProgressHandler* onProgress = nullptr);

 private:
  HypervisorClient();
  class Mailbox;
  std::shared_ptr<Mailbox> mailbox_;
  std::unique_ptr<transport::Transport> transport_;
  std::shared_ptr<transport::Connection> connection_;
};

// Splits "HOST:PORT" (the last colon separates the port); false and `error`
// when it is not of that form or the port is not 1..65535 (0 too when
// `allowAnyPort`).
bool parseHostPort(const std::string& text, std::string& host, uint16_t& port, bool allowAnyPort,
                   std::string& error);

}  // namespace synergy::hypervisor

//===- RedisConnection.h - One hiredis connection with deadlines ----------===//
//
// The cluster state store speaks to Redis only through this class: hiredis
// (the maintained C client) encodes and parses the protocol, and every
// connect and every command has a deadline, so an unreachable, stopped or
// vanished Redis becomes a StateStoreError with a one-line message instead
// of a hang. Commands are argument vectors (redisCommandArgv), never format
// strings, so no key or value can change a command's shape.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct redisContext;
struct redisReply;

namespace synergy::cluster {

// Redis unreachable, a command timing out, or a reply of an unexpected shape.
class StateStoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where the state lives, from "redis://[[USER]:PASSWORD@]HOST[:PORT]" (PORT
// defaults to 6379). With a password, every connection sends AUTH first.
struct StateUrl {
  std::string host;
  uint16_t port = 6379;
  std::string user;
  std::string password;
  // For messages and logs: never the credentials.
  std::string text() const { return "redis://" + host + ":" + std::to_string(port); }
  // The URL a parseStateUrl() gives back unchanged, credentials included:
  // only for the daemon's private job part files.
  std::string textWithCredentials() const;
};

// Parses a --state value; false with `error` when it is not
// redis://[[USER]:PASSWORD@]HOST[:PORT]. The error never quotes a password.
bool parseStateUrl(const std::string& text, StateUrl& url, std::string& error);

// A reply, freed with the hiredis allocator.
struct RedisReplyDeleter {
  void operator()(redisReply* reply) const;
};
using RedisReplyPtr = std::unique_ptr<redisReply, RedisReplyDeleter>;

class RedisConnection {
 public:
  // Connects within `timeout`, which also bounds every later command.
  // Throws StateStoreError.
  RedisConnection(const StateUrl& url, std::chrono::milliseconds timeout);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Runs one command. Throws StateStoreError on I/O failure, timeout or an
  // error reply. After an I/O failure or a timeout the next command first
  // connects again (within the timeout), so the connection outlives a
  // Redis that stalled or restarted.
  RedisReplyPtr command(const std::vector<std::string>& arguments);
  // Sends every command, then reads their replies in order: one round trip
  // for all. Throws as command() does, at the first failing reply.
  std::vector<RedisReplyPtr> pipeline(const std::vector<std::vector<std::string>>& commands);

  const StateUrl& url() const { return url_; }

 private:
  // Sends AUTH with the URL's credentials; throws StateStoreError and frees
  // the context when Redis refuses them.
  void authenticate();
  // Opens context_ within timeout_ and logs in; throws StateStoreError and
  // leaves context_ null when it cannot.
  void connect();

  StateUrl url_;
  std::chrono::milliseconds timeout_;
  redisContext* context_ = nullptr;
};

// Reply accessors that throw StateStoreError when the reply has another
// shape: Redis is outside our trust boundary too.
long long replyInteger(const redisReply& reply);
std::vector<std::string> replyStrings(const redisReply& reply);

}  // namespace synergy::cluster

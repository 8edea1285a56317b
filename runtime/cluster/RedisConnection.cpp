//===- RedisConnection.cpp - One hiredis connection with deadlines --------===//
//
// This file implements RedisConnection.h over hiredis's blocking API with
// connect and socket timeouts.
//
//===----------------------------------------------------------------------===//
#include "cluster/RedisConnection.h"

#include <charconv>
#include <hiredis/hiredis.h>

namespace synergy::cluster {

namespace {

constexpr size_t kMaxPasswordBytes = 512;
constexpr size_t kMaxUserBytes = 128;

// Printable ASCII without space: what survives a command line and the
// daemon's line-oriented job part file unchanged.
bool isPasswordText(const std::string& text) {
  for (char c : text)
    if (c < '!' || c > '~') return false;
  return true;
}

}  // namespace

std::string StateUrl::textWithCredentials() const {
  if (password.empty()) return text();
  return "redis://" + user + ":" + password + "@" + host + ":" + std::to_string(port);
}

bool parseStateUrl(const std::string& text, StateUrl& url, std::string& error) {
  const std::string scheme = "redis://";
  if (text.rfind(scheme, 0) != 0) {
    error = "state URL must look like redis://[:PASSWORD@]HOST:PORT";
    return false;
  }
  std::string rest = text.substr(scheme.size());
  std::string user, password;
  // The host part holds no '@', so the last one ends the credentials, which
  // may contain '@' themselves.
  size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    std::string credentials = rest.substr(0, at);
    size_t colon = credentials.find(':');
    if (colon == std::string::npos) {
      error = "state URL's credentials must be :PASSWORD or USER:PASSWORD before the '@'";
      return false;
    }
    user = credentials.substr(0, colon);
    password = credentials.substr(colon + 1);
    if (password.empty() || password.size() > kMaxPasswordBytes || !isPasswordText(password)) {
      error = "state URL's password must be 1 to " + std::to_string(kMaxPasswordBytes) +
              " printable characters without spaces";
      return false;
    }
    if (user.size() > kMaxUserBytes ||
        user.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != std::string::npos) {
      error = "state URL's user name must be at most " + std::to_string(kMaxUserBytes) +
              " letters, digits, '_', '.' or '-'";
      return false;
    }
    rest = rest.substr(at + 1);
  }
  // What the messages below may quote: the URL without its credentials.
  std::string shown = scheme + rest;
  size_t colon = rest.rfind(':');
  std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
  if (host.empty() || host.size() > 253 ||
      host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") !=
          std::string::npos) {
    error = "state URL '" + shown + "' has no valid host name";
    return false;
  }
  unsigned port = 6379;
  if (colon != std::string::npos) {
    std::string portText = rest.substr(colon + 1);
    auto [end, code] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
    if (portText.empty() || code != std::errc() || end != portText.data() + portText.size() ||
        port == 0 || port > 65535) {
      error = "state URL '" + shown + "' has an invalid port";
      return false;
    }
  }
  url.host = host;
  url.port = uint16_t(port);
  url.user = user;
  url.password = password;
  return true;
}

void RedisReplyDeleter::operator()(redisReply* reply) const { freeReplyObject(reply); }

static timeval toTimeval(std::chrono::milliseconds timeout) {
  return timeval{static_cast<time_t>(timeout.count() / 1000),
                 static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
}

RedisConnection::RedisConnection(const StateUrl& url, std::chrono::milliseconds timeout)
    : url_(url), timeout_(timeout) {
  connect();
}

void RedisConnection::connect() {
  context_ = redisConnectWithTimeout(url_.host.c_str(), url_.port, toTimeval(timeout_));
  if (!context_) throw StateStoreError("cannot reach the cluster state at " + url_.text());
  if (context_->err) {
    std::string reason = context_->errstr;
    redisFree(context_);
    context_ = nullptr;
    throw StateStoreError("cannot reach the cluster state at " + url_.text() + ": " + reason);
  }
  if (redisSetTimeout(context_, toTimeval(timeout_)) != REDIS_OK) {
    redisFree(context_);
    context_ = nullptr;
    throw StateStoreError("cannot set a timeout on the connection to " + url_.text());
  }
  if (!url_.password.empty()) authenticate();
}

void RedisConnection::authenticate() {
  std::vector<std::string> arguments{"AUTH"};
  if (!url_.user.empty()) arguments.push_back(url_.user);
  arguments.push_back(url_.password);
  std::vector<const char*> pointers;
  std::vector<size_t> lengths;
  for (const std::string& argument : arguments) {
    pointers.push_back(argument.data());
    lengths.push_back(argument.size());
  }
  RedisReplyPtr reply(static_cast<redisReply*>(
      redisCommandArgv(context_, int(arguments.size()), pointers.data(), lengths.data())));
  std::string reason;
  if (!reply)
    reason = "no reply to AUTH";
  else if (reply->type == REDIS_REPLY_ERROR)
    reason = "the password was refused (" + std::string(reply->str, reply->len) + ")";
  if (reason.empty()) return;
  redisFree(context_);
  context_ = nullptr;
  throw StateStoreError("cannot log in to the cluster state at " + url_.text() + ": " + reason);
}

RedisConnection::~RedisConnection() {
  if (context_) redisFree(context_);
}

RedisReplyPtr RedisConnection::command(const std::vector<std::string>& arguments) {
  std::vector<RedisReplyPtr> replies = pipeline({arguments});
  return std::move(replies.front());
}

std::vector<RedisReplyPtr> RedisConnection::pipeline(
    const std::vector<std::vector<std::string>>& commands) {
  // A connection that failed (a timeout leaves a late reply unread on it)
  // is replaced, not reused: the command that failed is not repeated, but
  // the next one gets a fresh connection, so a Redis that was only slow
  // costs its callers one error each, not the connection for good.
  if (context_ && context_->err) {
    redisFree(context_);
    context_ = nullptr;
  }
  if (!context_) connect();
  for (const std::vector<std::string>& arguments : commands) {
    std::vector<const char*> pointers;
    std::vector<size_t> lengths;
    for (const std::string& argument : arguments) {
      pointers.push_back(argument.data());
      lengths.push_back(argument.size());
    }
    if (redisAppendCommandArgv(context_, int(arguments.size()), pointers.data(),
                               lengths.data()) != REDIS_OK)
      throw StateStoreError("lost the cluster state at " + url_.text() + ": cannot queue " +
                            arguments[0]);
  }
  // Every reply is read before any is judged, so that an error reply
  // leaves no later one unread on the connection.
  std::vector<RedisReplyPtr> replies;
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK) break;
    replies.emplace_back(static_cast<redisReply*>(raw));
  }
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::vector<std::string>& arguments = commands[i];
    redisReply* reply = i < replies.size() ? replies[i].get() : nullptr;
    if (!reply) {
      std::string reason = context_->err ? context_->errstr : "no reply";
      // hiredis reports a socket timeout as the errno text of EAGAIN.
      if (reason.find("Resource temporarily unavailable") != std::string::npos)
        reason = "no reply within the timeout";
      throw StateStoreError("lost the cluster state at " + url_.text() + ": " + reason);
    }
    if (reply->type == REDIS_REPLY_ERROR &&
        std::string(reply->str, reply->len).rfind("NOAUTH", 0) == 0)
      throw StateStoreError("the cluster state at " + url_.text() +
                            " requires a password: give it as redis://:PASSWORD@HOST:PORT");
    if (reply->type == REDIS_REPLY_ERROR)
      throw StateStoreError("the cluster state at " + url_.text() + " refused " + arguments[0] +
                            ": " + std::string(reply->str, reply->len));
  }
  return replies;
}

long long replyInteger(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_INTEGER)
    throw StateStoreError("unexpected reply type " + std::to_string(reply.type) +
                          " where an integer was expected");
  return reply.integer;
}

std::vector<std::string> replyStrings(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ARRAY)
    throw StateStoreError("unexpected reply type " + std::to_string(reply.type) +
                          " where an array was expected");
  std::vector<std::string> strings;
  for (size_t i = 0; i < reply.elements; ++i) {
    const redisReply* element = reply.element[i];
    if (element->type != REDIS_REPLY_STRING && element->type != REDIS_REPLY_STATUS)
      throw StateStoreError("unexpected element type " + std::to_string(element->type) +
                            " where a string was expected");
    strings.emplace_back(element->str, element->len);
  }
  return strings;
}

}  // namespace synergy::cluster

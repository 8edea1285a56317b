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

bool parseStateUrl(const std::string& text, StateUrl& url, std::string& error) {
  const std::string scheme = "redis://";
  if (text.rfind(scheme, 0) != 0) {
    error = "state URL '" + text + "' must look like redis://HOST:PORT";
    return false;
  }
  std::string rest = text.substr(scheme.size());
  size_t colon = rest.rfind(':');
  std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
  if (host.empty() || host.size() > 253 ||
      host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") !=
          std::string::npos) {
    error = "state URL '" + text + "' has no valid host name";
    return false;
  }
  unsigned port = 6379;
  if (colon != std::string::npos) {
    std::string portText = rest.substr(colon + 1);
    auto [end, code] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
    if (portText.empty() || code != std::errc() || end != portText.data() + portText.size() ||
        port == 0 || port > 65535) {
      error = "state URL '" + text + "' has an invalid port";
      return false;
    }
  }
  url.host = host;
  url.port = uint16_t(port);
  return true;
}

void RedisReplyDeleter::operator()(redisReply* reply) const { freeReplyObject(reply); }

static timeval toTimeval(std::chrono::milliseconds timeout) {
  return timeval{static_cast<time_t>(timeout.count() / 1000),
                 static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
}

RedisConnection::RedisConnection(const StateUrl& url, std::chrono::milliseconds timeout)
    : url_(url) {
  context_ = redisConnectWithTimeout(url.host.c_str(), url.port, toTimeval(timeout));
  if (!context_) throw StateStoreError("cannot reach the cluster state at " + url.text());
  if (context_->err) {
    std::string reason = context_->errstr;
    redisFree(context_);
    context_ = nullptr;
    throw StateStoreError("cannot reach the cluster state at " + url.text() + ": " + reason);
  }
  if (redisSetTimeout(context_, toTimeval(timeout)) != REDIS_OK) {
    redisFree(context_);
    context_ = nullptr;
    throw StateStoreError("cannot set a timeout on the connection to " + url.text());
  }
}

RedisConnection::~RedisConnection() {
  if (context_) redisFree(context_);
}

RedisReplyPtr RedisConnection::command(const std::vector<std::string>& arguments) {
  if (context_->err)
    throw StateStoreError("lost the cluster state at " + url_.text() + ": " + context_->errstr);
  std::vector<const char*> pointers;
  std::vector<size_t> lengths;
  for (const std::string& argument : arguments) {
    pointers.push_back(argument.data());
    lengths.push_back(argument.size());
  }
  RedisReplyPtr reply(static_cast<redisReply*>(
      redisCommandArgv(context_, int(arguments.size()), pointers.data(), lengths.data())));
  if (!reply) {
    std::string reason = context_->err ? context_->errstr : "no reply";
    // hiredis reports a socket timeout as the errno text of EAGAIN.
    if (reason.find("Resource temporarily unavailable") != std::string::npos)
      reason = "no reply within the timeout";
    throw StateStoreError("lost the cluster state at " + url_.text() + ": " + reason);
  }
  if (reply->type == REDIS_REPLY_ERROR)
    throw StateStoreError("the cluster state at " + url_.text() + " refused " + arguments[0] +
                          ": " + std::string(reply->str, reply->len));
  return reply;
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

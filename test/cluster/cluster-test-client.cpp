//===- cluster-test-client.cpp - Drives the cluster libraries for tests --===//
//
// A test-only client for cluster_test.py, so that the tests exercise the
// real synergy::cluster scripts and synergy::transport client against real
// servers:
//
//   claim URL HOST COUNT ATTEMPTS   ATTEMPTS threads, each with its own Redis
//                                   connection, claim COUNT slots at once;
//                                   prints "claimed K of ATTEMPTS"
//   submit URL NAME RANKS [LEASE_MS] queues a job that no one renews (a
//                                   client that died); prints "job ID"
//   start URL HOST                  starts the queue's head on HOST; prints
//                                   "started job ID" or "nothing started"
//   finish URL ID                   removes a job, freeing its slots
//   ping ADDRESS PORT TOKEN_FILE N  connects, sends an N-byte Ping and checks
//                                   the Pong; prints "pong N bytes"
//   record-checkpoint URL ID SEQ HOSTS OUTPUTS
//                                   writes job ID's checkpoint record
//                                   (cluster/CheckpointHolders.h); HOSTS
//                                   and OUTPUTS are comma-separated
//   checkpoint-holders URL ID       reads it back; prints "sequence N hosts
//                                   H,.. outputs B,.." or "no record"
//   part-hosts URL ID PARTS HOLDERS the hosts of the parts HOLDERS of job ID
//                                   whose rank -> part table is PARTS
//                                   (both comma-separated); prints them
//
//===----------------------------------------------------------------------===//
#include <condition_variable>
#include <cstdio>
#include <future>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "cluster/CheckpointHolders.h"
#include "cluster/ClusterState.h"
#include "transport/ClusterToken.h"
#include "transport/Transport.h"

using namespace synergy;

namespace {

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "cluster-test-client: error: %s\n", message.c_str());
  std::exit(1);
}

cluster::StateUrl stateUrl(const std::string& text) {
  cluster::StateUrl url;
  std::string error;
  if (!cluster::parseStateUrl(text, url, error)) fail(error);
  return url;
}

int claim(const cluster::StateUrl& url, const std::string& host, unsigned count,
          unsigned attempts) {
  // Connect every client first, then release them together, so the claims
  // really race inside Redis.
  std::latch connected(attempts), go(1);
  std::vector<int> outcomes(attempts, 0);
  std::vector<std::thread> clients;
  for (unsigned i = 0; i < attempts; ++i) {
    clients.emplace_back([&, i] {
      try {
        cluster::ClusterState state(url);
        connected.count_down();
        go.wait();
        outcomes[i] = state.claimSlots(host, count) == cluster::ClaimOutcome::Claimed;
      } catch (const cluster::StateStoreError& e) {
        connected.count_down();
        std::fprintf(stderr, "cluster-test-client: error: %s\n", e.what());
        outcomes[i] = -1;
      }
    });
  }
  connected.wait();
  go.count_down();
  for (std::thread& client : clients) client.join();
  unsigned claimed = 0;
  for (int outcome : outcomes) {
    if (outcome < 0) return 1;
    claimed += unsigned(outcome);
  }
  std::printf("claimed %u of %u\n", claimed, attempts);
  return 0;
}

int ping(const std::string& address, unsigned port, const std::string& tokenFile, size_t bytes) {
  std::string token, error;
  if (!transport::readClusterToken(tokenFile, token, error)) fail(error);
  std::promise<transport::Frame> reply;
  transport::Transport transport(
      {.token = token, .onFrame = [&](transport::Connection&, transport::Frame&& frame, std::string&) {
         reply.set_value(std::move(frame));
         return true;
       }});
  std::shared_ptr<transport::Connection> connection =
      transport.connectionTo(address, uint16_t(port), error);
  if (!connection) fail(error);
  std::vector<uint8_t> payload(bytes);
  for (size_t i = 0; i < bytes; ++i) payload[i] = uint8_t(i * 13 + 1);
  connection->send(transport::FrameType::Ping, payload);
  std::future<transport::Frame> pong = reply.get_future();
  if (pong.wait_for(std::chrono::seconds(20)) != std::future_status::ready)
    fail("no Pong within 20 s");
  transport::Frame frame = pong.get();
  if (frame.type != transport::FrameType::Pong || frame.payload != payload)
    fail("the Pong does not carry the Ping's payload");
  std::printf("pong %zu bytes\n", bytes);
  return 0;
}

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::vector<uint32_t> numbers(const std::string& text) {
  std::vector<uint32_t> values;
  for (const std::string& item : splitCommas(text)) values.push_back(uint32_t(std::stoul(item)));
  return values;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ",") + item;
  return text;
}

int checkpointHolders(const cluster::StateUrl& url, uint64_t jobId) {
  cluster::RedisConnection redis(url, std::chrono::milliseconds(2000));
  std::optional<cluster::CheckpointHolders> holders = cluster::readCheckpointHolders(redis, jobId);
  if (!holders) {
    std::printf("no record\n");
    return 0;
  }
  std::vector<std::string> outputs;
  for (uint64_t bytes : holders->stdoutBytes) outputs.push_back(std::to_string(bytes));
  std::printf("sequence %llu hosts %s outputs %s\n", (unsigned long long)holders->sequence,
              joined(holders->hostIds).c_str(), joined(outputs).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 5 && args[0] == "claim")
      return claim(stateUrl(args[1]), args[2], std::stoul(args[3]), std::stoul(args[4]));
    if ((args.size() == 4 || args.size() == 5) && args[0] == "submit") {
      cluster::ClusterState state(stateUrl(args[1]));
      std::chrono::milliseconds lease = args.size() == 5
                                            ? std::chrono::milliseconds(std::stoul(args[4]))
                                            : cluster::kQueuedJobLease;
      std::printf("job %llu\n", (unsigned long long)state.submitJob(args[2], "test-app",
                                                                     std::stoul(args[3]), lease));
      return 0;
    }
    if (args.size() == 3 && args[0] == "start") {
      cluster::ClusterState state(stateUrl(args[1]));
      if (std::optional<cluster::JobRecord> job = state.startQueuedJob(args[2]))
        std::printf("started job %llu\n", (unsigned long long)job->id);
      else
        std::printf("nothing started\n");
      return 0;
    }
    if (args.size() == 3 && args[0] == "finish") {
      cluster::ClusterState state(stateUrl(args[1]));
      state.finishJob(std::stoull(args[2]));
      return 0;
    }
    if (args.size() == 5 && args[0] == "ping")
      return ping(args[1], std::stoul(args[2]), args[3], std::stoul(args[4]));
    if (args.size() == 6 && args[0] == "record-checkpoint") {
      cluster::RedisConnection redis(stateUrl(args[1]), std::chrono::milliseconds(2000));
      cluster::CheckpointHolders holders;
      holders.sequence = std::stoull(args[3]);
      holders.hostIds = splitCommas(args[4]);
      for (uint32_t bytes : numbers(args[5])) holders.stdoutBytes.push_back(bytes);
      cluster::recordCheckpointHolders(redis, std::stoull(args[2]), holders);
      return 0;
    }
    if (args.size() == 3 && args[0] == "checkpoint-holders")
      return checkpointHolders(stateUrl(args[1]), std::stoull(args[2]));
    if (args.size() == 5 && args[0] == "part-hosts") {
      cluster::RedisConnection redis(stateUrl(args[1]), std::chrono::milliseconds(2000));
      std::printf("%s\n", joined(cluster::partHostIds(redis, std::stoull(args[2]),
                                                      numbers(args[3]), numbers(args[4])))
                               .c_str());
      return 0;
    }
  } catch (const std::exception& e) {
    fail(e.what());
  }
  fail("usage: see the banner of test/cluster/cluster-test-client.cpp");
}

//===- RemoteJob.cpp - Running an MPI job on a cluster host ----------------===//
//
// This file implements RemoteJob.h. The job's frames arrive on the transport's
// I/O thread, which writes output straight to this process's stdout and
// stderr and completes a promise with the outcome; the calling thread waits
// on it.
//
//===----------------------------------------------------------------------===//
#include "scheduler/RemoteJob.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <thread>
#include <unistd.h>

#include "cluster/ClusterState.h"
#include "cluster/JobMessages.h"
#include "scheduler/PlacementPolicy.h"
#include "transport/ClusterToken.h"
#include "transport/Transport.h"
#include "util/FileIO.h"
#include "util/Sha256.h"

namespace synergy::scheduler {

namespace {

// How often a queued job looks again for its turn and for free slots.
constexpr auto kQueuePollInterval = std::chrono::milliseconds(50);

class RemoteJobError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct JobOutcome {
  int status = 2;
  std::string error;  // nonempty when the job did not run to an exit status
};

void writeAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t written = write(fd, data, size);
    if (written <= 0) return;
    data += written;
    size -= size_t(written);
  }
}

// "1.2.3.4:PORT" or "[v6]:PORT" as registered by synergyd.
bool splitHostAddress(const std::string& text, std::string& address, uint16_t& port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  address = text.substr(0, colon);
  if (address.front() == '[' && address.back() == ']')
    address = address.substr(1, address.size() - 2);
  unsigned long value = 0;
  for (char c : text.substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + unsigned(c - '0');
    if (value > 65535) return false;
  }
  port = uint16_t(value);
  return true;
}

// Waits until the job is the queue's head and a host takes it; returns that host.
cluster::HostRecord placeJob(cluster::ClusterState& state, const PlacementPolicy& policy,
                             uint64_t jobId, const std::string& app, unsigned ranks) {
  for (;;) {
    std::vector<cluster::HostRecord> hosts = state.hosts();
    unsigned largest = 0;
    for (const cluster::HostRecord& host : hosts)
      if (!host.draining) largest = std::max(largest, host.slots);
    if (largest < ranks)
      throw RemoteJobError("no host has " + std::to_string(ranks) + " slots (largest: " +
                           std::to_string(largest) +
                           "); jobs across several hosts are not supported yet");
    std::vector<cluster::JobRecord> queued = state.queuedJobs();
    if (!queued.empty() && queued.front().id == jobId) {
      if (std::optional<std::string> hostId =
              policy.chooseHost(hosts, state.runningJobs(), app, ranks)) {
        if (std::optional<cluster::JobRecord> started = state.startQueuedJob(*hostId)) {
          if (started->id != jobId)
            throw RemoteJobError("the cluster queue changed under job " + std::to_string(jobId));
          for (const cluster::HostRecord& host : hosts)
            if (host.id == *hostId) return host;
        }
      }
    }
    std::this_thread::sleep_for(kQueuePollInterval);
  }
}

int runPlacedJob(const RemoteJobOptions& options, const std::string& token,
                 const std::string& module, const cluster::RunJobRequest& request,
                 const cluster::HostRecord& host) {
  std::string address;
  uint16_t port = 0;
  if (!splitHostAddress(host.address, address, port))
    throw RemoteJobError("host " + host.id + " has a malformed address '" + host.address + "'");
  std::promise<JobOutcome> outcome;
  std::once_flag finished;
  auto finish = [&](JobOutcome result) {
    std::call_once(finished, [&] { outcome.set_value(std::move(result)); });
  };
  transport::Transport transport(
      {.token = token,
       .onFrame =
           [&](transport::Connection& from, transport::Frame&& frame, std::string& reason) {
             switch (frame.type) {
               case transport::FrameType::ModuleWanted:
                 from.send(transport::FrameType::ModuleData,
                           std::vector<uint8_t>(module.begin(), module.end()));
                 return true;
               case transport::FrameType::JobOutput:
                 if (frame.payload.empty() || frame.payload[0] < 1 || frame.payload[0] > 2) {
                   reason = "JobOutput for an unknown stream";
                   return false;
                 }
                 writeAll(frame.payload[0] == 1 ? STDOUT_FILENO : STDERR_FILENO,
                          frame.payload.data() + 1, frame.payload.size() - 1);
                 return true;
               case transport::FrameType::JobExit: {
                 if (frame.payload.size() != 4) {
                   reason = "JobExit without a 4-byte status";
                   return false;
                 }
                 uint32_t status = 0;
                 for (int i = 0; i < 4; ++i) status |= uint32_t(frame.payload[i]) << (8 * i);
                 finish({int(status & 0xff), ""});
                 return true;
               }
               case transport::FrameType::JobRefused:
                 finish({2, "host " + host.id + " refused the job: " +
                                std::string(frame.payload.begin(), frame.payload.end())});
                 return true;
               default:
                 return false;
             }
           },
       .onClosed =
           [&](transport::Connection&) {
             finish({2, "lost the connection to host " + host.id + " (ranks 0-" +
                            std::to_string(request.ranks - 1) + ")"});
           },
       .log =
           [&](const std::string& line) {
             finish({2, "host " + host.id + ": " + line});
           }});
  std::string error;
  std::shared_ptr<transport::Connection> connection = transport.connectionTo(address, port, error);
  if (!connection) throw RemoteJobError(error);
  connection->send(transport::FrameType::RunJob, cluster::encodeRunJob(request));
  JobOutcome result = outcome.get_future().get();
  if (!result.error.empty()) throw RemoteJobError(result.error);
  return result.status;
}

}  // namespace

int runRemoteJob(const RemoteJobOptions& options) {
  std::optional<uint64_t> jobId;
  std::optional<cluster::ClusterState> state;
  try {
    std::unique_ptr<PlacementPolicy> policy = createPlacementPolicy(options.policy);
    if (!policy) throw RemoteJobError("unknown placement policy '" + options.policy + "'");
    std::string token, error;
    if (!transport::readClusterToken(options.tokenFile, token, error)) throw RemoteJobError(error);
    std::optional<std::string> module = util::readFile(options.program);
    if (!module) throw RemoteJobError("cannot read " + options.program);
    if (module->size() > transport::kMaxFramePayloadBytes)
      throw RemoteJobError(options.program + " is larger than " +
                           std::to_string(transport::kMaxFramePayloadBytes >> 20) +
                           " MiB, which cluster jobs do not support yet");
    cluster::RunJobRequest request;
    util::Sha256 hasher;
    hasher.update(*module);
    request.moduleHash = hasher.digest();
    request.ranks = options.ranks;
    request.tagOutput = options.tagOutput;
    request.arguments = options.arguments;
    request.environment = options.environment;
    std::string app = cluster::hashHex(request.moduleHash);
    std::string name = options.program.substr(options.program.rfind('/') + 1);

    state.emplace(options.state);
    jobId = state->submitJob(name.substr(0, cluster::kMaxJobNameBytes), app, options.ranks);
    request.jobId = *jobId;
    cluster::HostRecord host = placeJob(*state, *policy, *jobId, app, options.ranks);
    // From here the host frees the slots when the job ends.
    int status = runPlacedJob(options, token, *module, request, host);
    return status;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "synergy-run: error: %s\n", e.what());
    if (state && jobId) {
      try {
        state->finishJob(*jobId);
      } catch (const cluster::StateStoreError&) {
        // The store is what failed; there is nothing left to free.
      }
    }
    return 2;
  }
}

}  // namespace synergy::scheduler

//===- synergyd.cpp - The per-host Synergy daemon --------------------------===//
//
// A thin main over synergy::transport and synergy::cluster: one synergyd runs
// on every host of a cluster. It listens for other hosts' connections on
// exactly the address it is given (every connection must present the
// cluster token), registers the host and its slots in the cluster state and
// keeps that entry alive with a heartbeat. Clients place jobs on it
// (cluster/JobHost.h), which it runs with the local synergy-run; a job's
// --dir grants must lie inside the directories --allow-dir names
// (cluster/JobGrants.h); with --checkpoint-root, jobs' checkpoint
// directories are this host's own, below it. On SIGTERM or SIGINT it refuses new work (stops
// listening and marks the host draining), lets running jobs finish,
// deregisters and exits 0. It also takes its turn deciding migrations for
// the cluster's running jobs (scheduler/BackgroundScheduler.h).
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <charconv>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include "cluster/ClusterState.h"
#include "cluster/JobGrants.h"
#include "cluster/JobHost.h"
#include "objectcache/ObjectCache.h"
#include "scheduler/BackgroundScheduler.h"
#include "transport/ClusterToken.h"
#include "transport/Transport.h"
#include "util/FileIO.h"

using namespace synergy;

namespace {

constexpr unsigned kDefaultTtlSeconds = 10;
constexpr double kDefaultDecideEverySeconds = 2;

void usage(FILE* out) {
  std::fprintf(out,
      "usage: synergyd --listen ADDRESS:PORT --slots N --state redis://HOST:PORT\n"
      "                --token-file FILE [--host-id ID] [--ttl SECONDS] [--allow-dir PATH]...\n"
      "                [--checkpoint-root DIR]\n"
      "                [--decide-every SECONDS]\n"
      "\n"
      "Runs this host's Synergy daemon: registers the host and its N slots in the\n"
      "cluster state and accepts connections from other hosts on ADDRESS:PORT only.\n"
      "\n"
      "  --listen ADDRESS:PORT  IP address and port to listen on ([v6]:PORT for IPv6);\n"
      "                         port 0 picks a free one\n"
      "  --slots N              granules this host runs at once (1..%u)\n"
      "  --state URL            the cluster's Redis, redis://[[USER]:PASSWORD@]HOST[:PORT]\n"
      "  --token-file FILE      the cluster token (16..256 bytes, file mode 600);\n"
      "                         connections without it are refused\n"
      "  --host-id ID           name in the cluster state (default: ADDRESS:PORT)\n"
      "  --ttl SECONDS          the host entry expires this long after the last\n"
      "                         heartbeat (default %u; heartbeats every TTL/3).\n"
      "                         A heartbeat Redis does not answer is retried;\n"
      "                         after max(TTL, 10 s) without an answer the\n"
      "                         daemon says so and exits\n"
      "  --allow-dir PATH       jobs' --dir grants may lie in PATH or below it\n"
      "                         (repeatable); a job granting any other directory\n"
      "                         is refused with the path named. Without it, no\n"
      "                         job placed here may have --dir. Each grant is\n"
      "                         opened and checked here, relative ones from the\n"
      "                         client's working directory, in which the job runs\n"
      "  --checkpoint-root DIR  jobs' checkpoint directories are this host's own:\n"
      "                         a job's --checkpoint-dir /x/y is DIR/x/y here\n"
      "                         (created as needed), and each part of a job\n"
      "                         spread over hosts sends its share of every\n"
      "                         checkpoint to the host of rank 0, which writes\n"
      "                         the checkpoint file there. Without it the\n"
      "                         directory must be one path all hosts share\n"
      "  --decide-every SECONDS when this daemon holds the cluster's scheduler lease\n"
      "                         (one daemon at a time does), compare each running\n"
      "                         job's placement with what its policy would choose\n"
      "                         now this often, and ask the jobs that would span\n"
      "                         fewer hosts to move at their next barrier control\n"
      "                         point (default %g; 0: never decide here)\n"
      "\n"
      "Jobs placed here run through the synergy-run next to synergyd, in one started\n"
      "ahead when they have no --dir; received modules are kept by content hash under\n"
      "$SYNERGY_CACHE_DIR/cluster-modules.\n"
      "\n"
      "exit status: 0 after SIGTERM/SIGINT and deregistration; 2 on bad usage or when\n"
      "the cluster state cannot be reached at start; 1 when it is lost later.\n"
      "\n"
      "examples:\n"
      "  synergyd --listen 127.0.0.2:7100 --slots 16 --state redis://127.0.0.1:6379 \\\n"
      "           --token-file /etc/synergy/token\n"
      "  synergyd --listen 127.0.0.2:7100 --slots 2 --state redis://127.0.0.1:6380 \\\n"
      "           --token-file token --ttl 3 --allow-dir /srv/jobs --allow-dir /data\n",
      cluster::kMaxSlotsPerHost, kDefaultTtlSeconds, kDefaultDecideEverySeconds);
}

[[noreturn]] void fail(const std::string& message, int status = 2) {
  std::fprintf(stderr, "synergyd: error: %s\n", message.c_str());
  std::exit(status);
}

void log(const std::string& line) { std::fprintf(stderr, "synergyd: %s\n", line.c_str()); }

bool parseUnsigned(const std::string& text, unsigned low, unsigned high, unsigned& value) {
  auto [end, code] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && code == std::errc() && end == text.data() + text.size() &&
         value >= low && value <= high;
}

// "1.2.3.4:PORT" or "[v6]:PORT".
bool parseListenAddress(const std::string& text, std::string& address, uint16_t& port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  address = text.substr(0, colon);
  if (address.front() == '[') {
    if (address.back() != ']') return false;
    address = address.substr(1, address.size() - 2);
  }
  unsigned value = 0;
  if (!parseUnsigned(text.substr(colon + 1), 0, 65535, value)) return false;
  port = uint16_t(value);
  return true;
}

struct DaemonOptions {
  std::string listenAddress;
  uint16_t listenPort = 0;
  unsigned slots = 0;
  cluster::StateUrl state;
  std::string tokenFile;
  std::string hostId;
  unsigned ttlSeconds = kDefaultTtlSeconds;
  double decideEverySeconds = kDefaultDecideEverySeconds;
  std::vector<std::string> allowedDirectories;  // canonical
  std::string checkpointRoot;                   // canonical; empty: none
};

DaemonOptions parseOptions(int argc, char** argv) {
  DaemonOptions options;
  bool haveListen = false, haveSlots = false, haveState = false;
  for (int i = 1; i < argc; ++i) {
    std::string option = argv[i];
    if (option == "-h" || option == "--help") {
      usage(stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) fail("option '" + option + "' needs a value (see --help)");
    std::string value = argv[++i];
    std::string error;
    if (option == "--listen") {
      if (!parseListenAddress(value, options.listenAddress, options.listenPort))
        fail("--listen wants ADDRESS:PORT, not '" + value + "'");
      haveListen = true;
    } else if (option == "--slots") {
      if (!parseUnsigned(value, 1, cluster::kMaxSlotsPerHost, options.slots))
        fail("--slots wants a number from 1 to " + std::to_string(cluster::kMaxSlotsPerHost) +
             ", not '" + value + "'");
      haveSlots = true;
    } else if (option == "--state") {
      if (!cluster::parseStateUrl(value, options.state, error)) fail(error);
      haveState = true;
    } else if (option == "--token-file") {
      options.tokenFile = value;
    } else if (option == "--host-id") {
      if (!cluster::isValidHostId(value))
        fail("--host-id wants letters, digits and '.:-_' (at most " +
             std::to_string(cluster::kMaxHostIdBytes) + "), not '" + value + "'");
      options.hostId = value;
    } else if (option == "--ttl") {
      if (!parseUnsigned(value, 2, 3600, options.ttlSeconds))
        fail("--ttl wants seconds from 2 to 3600, not '" + value + "'");
    } else if (option == "--decide-every") {
      char* end = nullptr;
      options.decideEverySeconds = std::strtod(value.c_str(), &end);
      // Written so that NaN fails too.
      if (value.empty() || *end ||
          (options.decideEverySeconds != 0 &&
           !(options.decideEverySeconds >= 0.1 && options.decideEverySeconds <= 3600)))
        fail("--decide-every wants 0 or seconds from 0.1 to 3600, not '" + value + "'");
    } else if (option == "--checkpoint-root") {
      std::optional<std::string> root = cluster::canonicalCheckpointRoot(value, error);
      if (!root) fail(error);
      options.checkpointRoot = *root;
    } else if (option == "--allow-dir") {
      std::optional<std::string> directory = cluster::canonicalAllowedDirectory(value, error);
      if (!directory) fail(error);
      options.allowedDirectories.push_back(*directory);
    } else {
      fail("unknown option '" + option + "' (see --help)");
    }
  }
  if (!haveListen || !haveSlots || !haveState || options.tokenFile.empty())
    fail("--listen, --slots, --state and --token-file are required (see --help)");
  return options;
}

// synergy-run from the directory this executable is in.
std::string runProgramPath() {
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) fail("cannot find this executable's directory");
  std::string self(path, size_t(length));
  return self.substr(0, self.rfind('/') + 1) + "synergy-run";
}

}  // namespace

int main(int argc, char** argv) {
  DaemonOptions options = parseOptions(argc, argv);
  std::string token, error;
  if (!transport::readClusterToken(options.tokenFile, token, error)) fail(error);

  // Block the stop signals before any thread starts, so that only the main
  // thread's sigtimedwait ever sees them.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  std::optional<cluster::ClusterState> state;
  try {
    state.emplace(options.state);
  } catch (const cluster::StateStoreError& e) {
    fail(e.what());
  }

  // Received modules live in a private area of the verified cache, never in a
  // directory another user could plant a module in.
  std::string cacheError;
  auto moduleArea = objectcache::ObjectCache::open("cluster-modules", cacheError);
  if (!moduleArea) fail(cacheError);

  std::mutex stateMutex;
  std::string hostId;  // known once listening; no job arrives before
  // Jobs whose slots the store did not take back when they ended (it did
  // not answer); the heartbeat frees them once it answers again.
  std::vector<uint64_t> unfreedJobs;
  cluster::JobHost jobHost({.runProgram = runProgramPath(),
                            .moduleDirectory = moduleArea->directory(),
                            .log = log,
                            .onJobFinished = [&](uint64_t jobId) {
                              std::lock_guard<std::mutex> lock(stateMutex);
                              try {
                                state->finishJob(jobId, hostId);
                              } catch (const cluster::StateStoreError& e) {
                                log(std::string("cannot free job ") + std::to_string(jobId) +
                                    " yet (the heartbeat retries): " + e.what());
                                unfreedJobs.push_back(jobId);
                              }
                            },
                            .hostAddress = options.listenAddress,
                            .state = options.state,
                            .tokenFile = options.tokenFile,
                            .allowedDirectories = options.allowedDirectories,
                            .checkpointRoot = options.checkpointRoot,
                            .hostId = [&] {
                              std::lock_guard<std::mutex> lock(stateMutex);
                              return hostId;
                            }});
  // Declared after jobHost: on the way out the transport stops first, so no
  // frame reaches a destroyed JobHost.
  transport::Transport transport(
      {.token = token,
       .onFrame = [&](transport::Connection& from, transport::Frame&& frame,
                      std::string& reason) { return jobHost.handleFrame(from, std::move(frame), reason); },
       .onClosed = [&](transport::Connection& connection) { jobHost.connectionClosed(connection); },
       .log = log});
  if (!transport.listen(options.listenAddress, options.listenPort, error)) fail(error);
  std::string address = (options.listenAddress.find(':') != std::string::npos
                             ? "[" + options.listenAddress + "]"
                             : options.listenAddress) +
                        ":" + std::to_string(transport.listeningPort());
  hostId = options.hostId.empty() ? address : options.hostId;
  if (!cluster::isValidHostId(hostId)) fail("'" + hostId + "' is not a valid host id; give --host-id");

  try {
    std::unique_lock<std::mutex> lock(stateMutex);
    state->registerHost(hostId, address, options.slots, options.ttlSeconds);
    log("host " + hostId + " listening on " + address + " with " + std::to_string(options.slots) +
        " slots");
    std::optional<scheduler::BackgroundScheduler> backgroundScheduler;
    if (options.decideEverySeconds > 0)
      backgroundScheduler.emplace(scheduler::BackgroundSchedulerOptions{
          .state = options.state,
          .hostId = hostId,
          .interval = std::chrono::milliseconds(long(options.decideEverySeconds * 1000 + 0.5)),
          .log = log});
    long heartbeatMillis = options.ttlSeconds * 1000L / 3;
    timespec heartbeat{heartbeatMillis / 1000, (heartbeatMillis % 1000) * 1000000L};
    // The daemon takes the cluster state for gone, and exits, once no
    // heartbeat has been answered for the host entry's TTL, and never
    // sooner than kStateOutageLimit: a short TTL (the tests use 2 s, one
    // command's timeout) would otherwise turn a single slow answer from a
    // busy Redis or a busy host into an outage that takes the host's
    // running jobs down with it.
    const auto outageLimit = std::max<std::chrono::steady_clock::duration>(
        std::chrono::seconds(options.ttlSeconds), cluster::kStateOutageLimit);
    auto lastAnswer = std::chrono::steady_clock::now();
    bool inOutage = false;
    int signal = -1;
    while (signal < 0) {
      lock.unlock();
      signal = sigtimedwait(&stopSignals, nullptr, &heartbeat);
      lock.lock();
      if (signal >= 0) break;
      try {
        if (!state->refreshHost(hostId, options.ttlSeconds)) {
          unsigned taken = state->restoreHost(hostId, address, options.slots, options.ttlSeconds);
          log("host entry had expired (heartbeat missed); registered again with " +
              std::to_string(taken) + " of " + std::to_string(options.slots) +
              " slots still held by running jobs");
        }
        while (!unfreedJobs.empty()) {
          state->finishJob(unfreedJobs.back(), hostId);
          log("freed job " + std::to_string(unfreedJobs.back()) + "'s slots");
          unfreedJobs.pop_back();
        }
      } catch (const cluster::StateStoreError& e) {
        auto silent = std::chrono::steady_clock::now() - lastAnswer;
        long silentSeconds = long(std::chrono::duration_cast<std::chrono::seconds>(silent).count());
        if (silent >= outageLimit)
          throw cluster::StateStoreError(std::string(e.what()) + " (no answer for " +
                                         std::to_string(silentSeconds) + " s)");
        if (!inOutage) log(std::string("heartbeat not answered; retrying: ") + e.what());
        inOutage = true;
        continue;
      }
      if (inOutage)
        log("the cluster state answers again after " +
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - lastAnswer)
                               .count()) +
            " ms");
      inOutage = false;
      lastAnswer = std::chrono::steady_clock::now();
    }
    log(std::string(signal == SIGTERM ? "SIGTERM" : "SIGINT") + ": refusing new work");
    // A draining host decides no more moves; another daemon takes the lease.
    lock.unlock();
    backgroundScheduler.reset();
    lock.lock();
    transport.stopListening();
    jobHost.refuseNewJobs();
    state->drainHost(hostId);
    lock.unlock();
    jobHost.waitForJobs();
    lock.lock();
    state->deregisterHost(hostId);
    log("deregistered host " + hostId);
  } catch (const cluster::StateStoreError& e) {
    fail(e.what(), 1);
  }
  return 0;
}

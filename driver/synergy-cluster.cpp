//===- synergy-cluster.cpp - Inspect a Synergy cluster ---------------------===//
//
// A thin main over synergy::cluster: `synergy-cluster --state URL status`
// prints the hosts registered in the cluster state with their slots, then the
// queued jobs in queue order and the running jobs with their hosts.
//
//===----------------------------------------------------------------------===//
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cluster/ClusterState.h"

using namespace synergy;

namespace {

void usage(FILE* out) {
  std::fprintf(out,
      "usage: synergy-cluster --state redis://[:PASSWORD@]HOST[:PORT] status\n"
      "\n"
      "  status   hosts (id, address, slots, free slots, up or draining), then the\n"
      "           queued jobs oldest first and the running jobs with their host (the\n"
      "           ranks on each, for a job spread over hosts)\n"
      "\n"
      "exit status: 0 on success, 2 on bad usage or when the cluster state cannot\n"
      "be read.\n"
      "\n"
      "examples:\n"
      "  synergy-cluster --state redis://127.0.0.1:6380 status\n"
      "  synergy-cluster --state redis://127.0.0.1:6379 status\n");
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "synergy-cluster: error: %s\n", message.c_str());
  std::exit(2);
}

// Job names come from whoever submitted the job; keep terminal control
// characters out of the listing.
std::string printable(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

// "h2" for a job on one host; "h2 (ranks 0-1), h3 (rank 2)" for a job
// spread over hosts, from its rank -> host table.
std::string placementOf(cluster::ClusterState& state, const cluster::JobRecord& job) {
  std::vector<std::string> hosts = state.rankHosts(job.id);
  if (hosts.empty()) return printable(job.host);
  std::string text;
  for (size_t first = 0; first < hosts.size();) {
    size_t last = first;
    while (last + 1 < hosts.size() && hosts[last + 1] == hosts[first]) ++last;
    if (!text.empty()) text += ", ";
    text += hosts[first] + (first == last ? " (rank " + std::to_string(first)
                                          : " (ranks " + std::to_string(first) + "-" +
                                                std::to_string(last)) +
            ")";
    first = last + 1;
  }
  return text;
}

void printStatus(cluster::ClusterState& state) {
  std::vector<cluster::HostRecord> hosts = state.hosts();
  unsigned slots = 0, freeSlots = 0;
  for (const cluster::HostRecord& host : hosts) {
    slots += host.slots;
    freeSlots += host.freeSlots;
  }
  std::printf("hosts: %zu, slots: %u, free: %u\n", hosts.size(), slots, freeSlots);
  for (const cluster::HostRecord& host : hosts)
    std::printf("  %s  address %s  slots %u  free %u  %s\n", host.id.c_str(),
                printable(host.address).c_str(), host.slots, host.freeSlots,
                host.draining ? "draining" : "up");
  std::vector<cluster::JobRecord> queued = state.queuedJobs();
  std::printf("queued jobs: %zu\n", queued.size());
  for (const cluster::JobRecord& job : queued)
    std::printf("  job %llu  %s  ranks %u\n", (unsigned long long)job.id,
                printable(job.name).c_str(), job.ranks);
  std::vector<cluster::JobRecord> running = state.runningJobs();
  std::printf("running jobs: %zu\n", running.size());
  for (const cluster::JobRecord& job : running)
    std::printf("  job %llu  %s  ranks %u  on %s\n", (unsigned long long)job.id,
                printable(job.name).c_str(), job.ranks, placementOf(state, job).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string stateText, command;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "-h" || argument == "--help") {
      usage(stdout);
      return 0;
    }
    if (argument == "--state") {
      if (i + 1 >= argc) fail("option '--state' needs a value (see --help)");
      stateText = argv[++i];
    } else if (command.empty() && argument[0] != '-') {
      command = argument;
    } else {
      fail("unexpected argument '" + argument + "' (see --help)");
    }
  }
  if (stateText.empty()) fail("--state redis://HOST:PORT is required (see --help)");
  if (command != "status")
    fail(command.empty() ? "no command given (see --help)" : "unknown command '" + command + "'");
  cluster::StateUrl url;
  std::string error;
  if (!cluster::parseStateUrl(stateText, url, error)) fail(error);
  try {
    cluster::ClusterState state(url);
    printStatus(state);
  } catch (const cluster::StateStoreError& e) {
    fail(e.what());
  }
  return 0;
}

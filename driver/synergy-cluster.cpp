//===- synergy-cluster.cpp - Inspect a Synergy cluster ---------------------===//
//
// A thin main over synergy::cluster: `synergy-cluster --state URL status`
// prints the hosts registered in the cluster state with their slots, then the
// queued jobs in queue order, the running jobs with their hosts and, once
// synergyd's background scheduler has decided any, its recent migration
// decisions (scheduler/BackgroundScheduler.h);
// `migrate JOB RANK HOST` asks a running job to move a rank
// (cluster/Migration.h) and reports what came of it.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/ClusterState.h"
#include "cluster/JobMessages.h"
#include "cluster/Migration.h"
#include "cluster/RankRoutes.h"
#include "scheduler/SchedulingRecords.h"

using namespace synergy;

namespace {

void usage(FILE* out) {
  std::fprintf(out,
      "usage: synergy-cluster --state redis://[:PASSWORD@]HOST[:PORT] status\n"
      "       synergy-cluster --state redis://[:PASSWORD@]HOST[:PORT] migrate JOB RANK HOST\n"
      "\n"
      "  status   hosts (id, address, slots, free slots, up or draining), then the\n"
      "           queued jobs oldest first and the running jobs with their host (the\n"
      "           ranks on each, for a job spread over hosts), then, once the\n"
      "           daemons' background scheduler has asked for any, its last %zu\n"
      "           migration decisions, newest first, with what came of each:\n"
      "           pending, moving, moved, aborted (why) or gone\n"
      "  migrate  move rank RANK of running job JOB to host HOST at the job's next\n"
      "           barrier control point (a collective on MPI_COMM_WORLD with no message\n"
      "           in flight); only a job that checkpoints into a directory (synergy-run\n"
      "           --cluster --checkpoint-dir) takes it. The job stops there, and its\n"
      "           client starts it again from that checkpoint with the rank on HOST, as\n"
      "           a new job. Waits up to 60 s for the job and prints what came of it;\n"
      "           when HOST lacks the free slots the move is aborted and the job goes on\n"
      "\n"
      "exit status: 0 on success, 1 when a migration was aborted or not taken within\n"
      "60 s (the request then stays for the job's next control point), 2 on bad usage\n"
      "or when the cluster state cannot be read.\n"
      "\n"
      "examples:\n"
      "  synergy-cluster --state redis://127.0.0.1:6380 status\n"
      "  synergy-cluster --state redis://127.0.0.1:6379 status\n"
      "  synergy-cluster --state redis://127.0.0.1:6380 migrate 7 1 h3\n",
      scheduler::kDecisionLogLength);
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
// spread over hosts, from its rank -> host table: each host once, in the
// order of its first rank, with all its ranks ("h2 (ranks 0,2), h3 (rank
// 1)" once rank 2 moved to h2 and the job's state says so).
std::string placementOf(cluster::ClusterState& state, const cluster::JobRecord& job) {
  std::vector<std::string> hosts = state.rankHosts(job.id);
  if (hosts.empty()) return printable(job.host);
  std::vector<std::string> hostOfPart;
  std::vector<uint32_t> partOfRank;
  for (const std::string& host : hosts) {
    auto known = std::find(hostOfPart.begin(), hostOfPart.end(), host);
    partOfRank.push_back(uint32_t(known - hostOfPart.begin()));
    if (known == hostOfPart.end()) hostOfPart.push_back(host);
  }
  cluster::RankRoutes routes(std::move(partOfRank), uint32_t(hostOfPart.size()));
  std::string text;
  for (uint32_t part = 0; part < routes.partCount(); ++part)
    text += (part ? ", " : "") + hostOfPart[part] + " (" + routes.describe(part) + ")";
  return text;
}

// What became of a decision's request, from the job's migration record.
std::string outcomeOf(cluster::RedisConnection& redis, uint64_t jobId) {
  std::optional<cluster::MigrationRequest> request;
  try {
    request = cluster::readMigration(redis, jobId);
  } catch (const cluster::StateStoreError&) {
    return "unreadable";
  }
  if (!request) return "gone";
  if (request->state == "requested") return "pending";
  if (request->state == "stopping") return "moving";
  if (request->state == "done") return "moved";
  return "aborted (" + request->reason + ")";
}

void printDecisions(const cluster::StateUrl& url) {
  cluster::RedisConnection redis(url, std::chrono::milliseconds(2000));
  std::vector<scheduler::LoggedDecision> decisions = scheduler::recentDecisions(redis);
  if (decisions.empty()) return;
  std::optional<std::string> leader = scheduler::schedulerLeaseHolder(redis);
  std::printf("migration decisions: %zu, newest first (decided by %s)\n", decisions.size(),
              leader ? leader->c_str() : "no host now");
  int64_t now = scheduler::wallClockMs();
  for (const scheduler::LoggedDecision& decision : decisions)
    std::printf("  job %llu  %s  %u hosts -> %s  %lld s ago  %s\n",
                (unsigned long long)decision.jobId, decision.policy.c_str(), decision.hostsBefore,
                cluster::formatHostCounts(decision.placement).c_str(),
                (long long)std::max<int64_t>(0, (now - decision.atMs) / 1000),
                outcomeOf(redis, decision.jobId).c_str());
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

// A decimal number up to `limit`, for the command's arguments.
uint64_t numberArgument(const std::string& text, uint64_t limit, const char* what) {
  uint64_t value = 0;
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos ||
      (value = std::stoull(text)) > limit)
    fail(std::string(what) + " expects a number from 0 to " + std::to_string(limit) + ", got '" +
         text + "'");
  return value;
}

// How long `migrate` waits for the job to take its request.
constexpr auto kMigrateWait = std::chrono::seconds(60);

int migrate(cluster::ClusterState& state, const cluster::StateUrl& url,
            const std::vector<std::string>& operands) {
  uint64_t jobId = numberArgument(operands[0], UINT64_MAX >> 1, "JOB");
  unsigned rank = unsigned(numberArgument(operands[1], cluster::kMaxJobRanks - 1, "RANK"));
  const std::string& target = operands[2];
  std::optional<cluster::JobRecord> job;
  for (const cluster::JobRecord& running : state.runningJobs())
    if (running.id == jobId) job = running;
  if (!job) fail("no running job " + std::to_string(jobId));
  std::vector<std::string> rankHosts = state.rankHosts(jobId);
  if (rankHosts.empty()) rankHosts.assign(job->ranks, job->host);
  std::string error;
  std::optional<cluster::MigrationRequest> request =
      cluster::planMove(rankHosts, {rank}, target, state.hosts(), 0, error);
  if (!request) fail("job " + std::to_string(jobId) + ": " + error);
  cluster::RedisConnection redis(url, std::chrono::milliseconds(2000));
  cluster::requestMigration(redis, jobId, *request);
  auto deadline = std::chrono::steady_clock::now() + kMigrateWait;
  std::string what = "job " + std::to_string(jobId) + ": " + request->what;
  while (std::chrono::steady_clock::now() < deadline) {
    std::optional<cluster::MigrationRequest> now = cluster::readMigration(redis, jobId);
    if (!now) break;
    if (now->state == "stopping" || now->state == "done") {
      // A move taken live (the same job runs on, no restart) says so in its
      // reason; one taken by a restart leaves none.
      if (now->state == "done" && now->reason.rfind("taken live", 0) == 0)
        std::printf("%s: moved live at a barrier control point, no restart (%s); the job goes "
                    "on on %s\n",
                    what.c_str(), printable(now->reason).c_str(),
                    cluster::formatHostCounts(now->placement).c_str());
      else
        std::printf("%s: moved at a barrier control point; the job goes on on %s\n",
                    what.c_str(), cluster::formatHostCounts(now->placement).c_str());
      return 0;
    }
    if (now->state == "aborted") {
      std::printf("%s: aborted (%s); the job goes on where it was\n", what.c_str(),
                  printable(now->reason).c_str());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::printf("%s: not taken within %lld s (the job has reached no barrier control point, or does "
              "not checkpoint into a directory); the request stays\n",
              what.c_str(), (long long)kMigrateWait.count());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string stateText, command;
  std::vector<std::string> operands;  // migrate's JOB RANK HOST
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
    } else if (command == "migrate" && operands.size() < 3) {
      operands.push_back(argument);
    } else {
      fail("unexpected argument '" + argument + "' (see --help)");
    }
  }
  if (stateText.empty()) fail("--state redis://HOST:PORT is required (see --help)");
  if (command != "status" && command != "migrate")
    fail(command.empty() ? "no command given (see --help)" : "unknown command '" + command + "'");
  if (command == "migrate" && operands.size() != 3)
    fail("migrate expects JOB RANK HOST (see --help)");
  cluster::StateUrl url;
  std::string error;
  if (!cluster::parseStateUrl(stateText, url, error)) fail(error);
  try {
    cluster::ClusterState state(url);
    if (command == "migrate") return migrate(state, url, operands);
    printStatus(state);
    printDecisions(url);
  } catch (const cluster::StateStoreError& e) {
    fail(e.what());
  }
  return 0;
}

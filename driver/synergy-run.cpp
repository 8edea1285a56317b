//===- synergy-run.cpp - run a granule -------------------------------------===//
//
// Thin main: parse options, load the module through the AOT cache, run its
// _start in a granule, and exit with the guest's status.
//
//===----------------------------------------------------------------------===//
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "engine/EngineRunner.h"
#include "granule/Granule.h"
#include "mpi/MpiJob.h"
#include "omp/ThreadGroup.h"
#include "scheduler/RemoteJob.h"
#include "snapshot/DsmMemory.h"
#include "synergy/ToolPaths.h"
#include "wasi/Wasi.h"

using namespace synergy;

namespace {

// A trapped guest exits like a process killed by SIGABRT would.
constexpr int kTrapExitCode = 134;

void printUsage() {
  std::printf(
      "usage: synergy-run [options] <program.wasm> [guest args...]\n"
      "       synergy-run [--dir HOST[:GUEST]] [--max-ticks N] [--save-at-tick N FILE]\n"
      "                   [--restart FILE] [--no-open-loop] <design.eng> [+plusargs]\n"
      "\n"
      "Runs a granule (.wasm) or an engine (.eng) built by synergy-cc. Both are\n"
      "compiled to native code on first use and cached (see SYNERGY_CACHE_DIR).\n"
      "\n"
      "options:\n"
      "  --dir HOST[:GUEST]  make host directory HOST visible to the guest as GUEST\n"
      "                      (default: the same path); nothing else is visible\n"
      "  --env KEY=VALUE     set an environment variable in the guest (repeatable)\n"
      "  -np N               run an MPI program as N ranks, like mpirun -np N\n"
      "  --tag-output        with -np: prefix each output line with [1,<rank>]<stdout>:\n"
      "  --bind-to core|none with -np: pin each rank to its own CPU, so that a waiting rank\n"
      "                      polls instead of sleeping (default: core when every rank has a CPU)\n"
      "  --cluster URL       with -np: run the job on a host of the cluster whose state is at\n"
      "                      URL (redis://HOST:PORT); all ranks on one host for now\n"
      "  --policy NAME       with --cluster: binpack (default), spread or locality\n"
      "  --token-file FILE   with --cluster: the cluster token (required)\n"
      "  --dsm               run OpenMP threads and pthreads on copy-on-write replicas of\n"
      "                      memory that meet through byte-wise diffs, as on several hosts\n"
      "                      (SYNERGY_DSM_STATS=1: print replica and diff counts at exit)\n"
      "  --help              print this help\n"
      "  --version           print the version\n"
      "\n"
      "exit status: the guest's exit code; %d when the guest traps.\n"
      "\n"
      "examples:\n"
      "  synergy-run hello.wasm arg1 arg2\n"
      "  synergy-run --dir ./data:/data --env MODE=fast app.wasm /data/input.txt\n"
      "  synergy-run -np 4 --tag-output ring.wasm\n"
      "  OMP_NUM_THREADS=4 synergy-run --dsm sgd.wasm\n"
      "  synergy-run --cluster redis://10.0.0.1:6379 --token-file token -np 4 ring.wasm\n",
      kTrapExitCode);
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "synergy-run: error: %s\n", message.c_str());
  std::exit(2);
}

std::string requireValue(int& i, int argc, char** argv) {
  if (i + 1 >= argc) fail(std::string("option '") + argv[i] + "' needs a value");
  return argv[++i];
}

// Whether the program argument names a compiled Verilog design (.eng): those
// run on the engine runtime, with its own options. Options before the program
// are skipped with their values.
bool programIsEngine(int argc, char** argv) {
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    if (arg == "--dir" || arg == "--env" || arg == "--max-ticks" || arg == "--restart" ||
        arg == "-np" || arg == "-n" || arg == "--np" || arg == "--bind-to" ||
        arg == "--cluster" || arg == "--policy" || arg == "--token-file") {
      ++k;
      continue;
    }
    if (arg == "--save-at-tick") {
      k += 2;
      continue;
    }
    if (!arg.empty() && arg[0] == '-') continue;
    return engine::isEngineFile(arg);
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (programIsEngine(argc, argv))
    return engine::runEngineCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  granule::GranuleConfig config;
  std::string program;
  int ranks = 0;  // 0: not an MPI job
  bool tagOutput = false;
  std::optional<bool> bindToCores;
  bool dsm = false;
  bool onCluster = false;
  scheduler::RemoteJobOptions clusterOptions;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printUsage();
      return 0;
    }
    if (arg == "--version") {
      std::printf("synergy-run %s\n", toolpaths::kVersion);
      return 0;
    }
    if (arg == "--env") {
      std::string kv = requireValue(i, argc, argv);
      if (kv.find('=') == std::string::npos) fail("--env expects KEY=VALUE, got '" + kv + "'");
      config.env.push_back(kv);
    } else if (arg == "--dir") {
      std::string spec = requireValue(i, argc, argv);
      size_t colon = spec.find(':');
      granule::Preopen preopen;
      preopen.hostPath = spec.substr(0, colon);
      preopen.guestPath = colon == std::string::npos ? preopen.hostPath : spec.substr(colon + 1);
      if (access(preopen.hostPath.c_str(), F_OK) != 0)
        fail("--dir: no such directory: " + preopen.hostPath);
      config.preopens.push_back(preopen);
    } else if (arg == "-np" || arg == "-n" || arg == "--np") {
      std::string count = requireValue(i, argc, argv);
      char* end = nullptr;
      long value = std::strtol(count.c_str(), &end, 10);
      if (count.empty() || *end || value < 1 || value > 4096)
        fail("-np expects a rank count from 1 to 4096, got '" + count + "'");
      ranks = int(value);
    } else if (arg == "--tag-output") {
      tagOutput = true;
    } else if (arg == "--bind-to") {
      std::string target = requireValue(i, argc, argv);
      if (target != "core" && target != "none")
        fail("--bind-to expects 'core' or 'none', got '" + target + "'");
      bindToCores = target == "core";
    } else if (arg == "--dsm") {
      dsm = true;
    } else if (arg == "--cluster") {
      std::string url = requireValue(i, argc, argv), error;
      if (!cluster::parseStateUrl(url, clusterOptions.state, error)) fail(error);
      onCluster = true;
    } else if (arg == "--policy") {
      clusterOptions.policy = requireValue(i, argc, argv);
      if (clusterOptions.policy != "binpack" && clusterOptions.policy != "spread" &&
          clusterOptions.policy != "locality")
        fail("--policy expects binpack, spread or locality, got '" + clusterOptions.policy + "'");
    } else if (arg == "--token-file") {
      clusterOptions.tokenFile = requireValue(i, argc, argv);
    } else if (arg == "--") {
      ++i;
      break;
    } else if (arg.size() > 1 && arg[0] == '-') {
      fail("unknown option '" + arg + "' (see --help)");
    } else {
      break;
    }
  }
  if (i >= argc) fail("no program given (see --help)");
  program = argv[i];
  for (; i < argc; ++i) config.args.push_back(argv[i]);
  if (access(program.c_str(), F_OK) != 0) fail("no such file: " + program);
  if (auto problem = wasi::checkPreopens(config)) fail(*problem);
  if (onCluster) {
    if (ranks == 0) fail("--cluster needs -np");
    if (clusterOptions.tokenFile.empty()) fail("--cluster needs --token-file");
    if (!config.preopens.empty()) fail("--dir is not supported with --cluster yet");
    if (dsm || bindToCores) fail("--dsm and --bind-to are not supported with --cluster");
    clusterOptions.program = program;
    clusterOptions.arguments = config.args;
    clusterOptions.environment = config.env;
    clusterOptions.ranks = unsigned(ranks);
    clusterOptions.tagOutput = tagOutput;
    return scheduler::runRemoteJob(clusterOptions);
  }
  if (clusterOptions.policy != "binpack" || !clusterOptions.tokenFile.empty())
    fail("--policy and --token-file need --cluster");
  // A guest writing to a closed pipe gets EPIPE from fd_write, as WASI
  // specifies, instead of the whole host dying of SIGPIPE.
  signal(SIGPIPE, SIG_IGN);

  if (ranks > 0) {
    mpi::JobOptions job;
    job.program = program;
    job.config = config;
    job.ranks = ranks;
    job.tagOutput = tagOutput;
    job.bindToCores = bindToCores;
    job.showProgress = isatty(STDERR_FILENO);
    return mpi::runJob(job);
  }
  if (tagOutput) fail("--tag-output needs -np");
  if (bindToCores) fail("--bind-to needs -np");

  std::string error;
  auto module = granule::Module::loadFile(program, error, isatty(STDERR_FILENO));
  if (!module) fail(error);

  granule::Granule granule(module, config);
  if (dsm) granule.extension<omp::ThreadMember>().group().setDsm(true);
  granule::RunResult result = granule.runStartOnOwnThread();
  std::fflush(stdout);
  if (const char* stats = std::getenv("SYNERGY_DSM_STATS"); stats && std::strcmp(stats, "0")) {
    snapshot::DsmStatistics dsmStats = snapshot::dsmStatistics();
    std::fprintf(stderr,
                 "synergy-run: dsm: %llu replicas, %llu pushes (%llu bytes), %llu pulls (%llu "
                 "pages)\n",
                 (unsigned long long)dsmStats.replicas, (unsigned long long)dsmStats.pushes,
                 (unsigned long long)dsmStats.pushedBytes, (unsigned long long)dsmStats.pulls,
                 (unsigned long long)dsmStats.pulledPages);
  }
  if (result.kind == granule::RunResult::Kind::Trapped) {
    std::fprintf(stderr, "trap: %s in %s\n", result.trapReason.c_str(),
                 result.trapFunction.c_str());
    return kTrapExitCode;
  }
  return result.exitCode;
}

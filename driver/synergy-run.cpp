//===- synergy-run.cpp - run a granule -------------------------------------===//
//
// Thin main: parse options, load the module through the AOT cache, run its
// _start in a granule, and exit with the guest's status.
//
//===----------------------------------------------------------------------===//
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "BinfmtRegistration.h"
#include "checkpoint/CheckpointedJob.h"
#include "engine/EngineRunner.h"
#include "hypervisor/HypervisorClient.h"
#include "hypervisor/RemoteEngine.h"
#include "granule/Granule.h"
#include "granule/HostStack.h"
#include "granule/ProcessEnd.h"
#include "granule/TimeLimit.h"
#include "granule/WasmRuntime.h"
#include "cluster/CheckpointAgreement.h"
#include "cluster/JobMessages.h"
#include "cluster/JobWorker.h"
#include "cluster/Migration.h"
#include "cluster/MpiPeerLink.h"
#include "cluster/ThreadHostLink.h"
#include "mpi/MpiJob.h"
#include "omp/ThreadGroup.h"
#include "process/ProcessTable.h"
#include "sandbox/Grant.h"
#include "scheduler/RemoteJob.h"
#include "snapshot/DsmMemory.h"
#include "synergy/ToolPaths.h"
#include "transport/ClusterToken.h"
#include "util/DecimalNumber.h"
#include "util/LimitOptions.h"
#include "wasi/Wasi.h"

using namespace synergy;

namespace {

// A trapped guest exits like a process killed by SIGABRT would.
constexpr int kTrapExitCode = 134;
// Each guest call is a native call: the guest's recursion depth is bounded
// by this stack (the guest's own stack, in linear memory, is separate).
constexpr size_t kGuestNativeStackBytes = size_t(64) << 20;

void printUsage() {
  std::printf(
      "usage: synergy-run [options] <program.wasm> [guest args...]\n"
      "       synergy-run [--dir HOST[:GUEST][:ro]] [--max-ticks N] [--save-at-tick N FILE]\n"
      "                   [--restart FILE] [--no-open-loop] [--max-memory BYTES]\n"
      "                   [--time-limit SECONDS] [--eval-limit SECONDS]\n"
      "                   [--engine compiled|software|auto] [--switch-at-tick N]\n"
      "                   [--hypervisor HOST:PORT --token-file FILE]\n"
      "                   [--timeline FILE.csv]\n"
      "                   <design.eng> [+plusargs]\n"
      "\n"
      "Runs a granule (.wasm) or an engine (.eng) built by synergy-cc. Both are\n"
      "compiled to native code on first use and cached (see SYNERGY_CACHE_DIR).\n"
      "\n"
      "options:\n"
      "  --dir HOST[:GUEST][:ro]\n"
      "                      make host directory HOST visible to the guest as GUEST\n"
      "                      (default: the same path; HOST::ro for the same path\n"
      "                      read-only); nothing else is visible. With :ro every\n"
      "                      write, create, rename or unlink there fails (EROFS).\n"
      "                      An engine without --dir sees the working directory.\n"
      "  --env KEY=VALUE     set an environment variable in the guest (repeatable)\n"
      "  -np N               run an MPI program as N ranks, like mpirun -np N\n"
      "  --tag-output        with -np: prefix each output line with [1,<rank>]<stdout>:\n"
      "  --bind-to core|none with -np: pin each rank to its own CPU, so that a waiting rank\n"
      "                      polls instead of sleeping (default: core when every rank has a CPU;\n"
      "                      a single rank then polls but is not pinned)\n"
      "  --cluster URL       with -np: run the job on a host of the cluster whose state is at\n"
      "                      URL (redis://[:PASSWORD@]HOST:PORT); ranks spread over hosts when\n"
      "                      they do not fit on one, or with --policy spread\n"
      "  --policy NAME       with --cluster: binpack (default), spread, locality or compact\n"
      "                      (as binpack; a job spread over hosts that checkpoints into\n"
      "                      --checkpoint-dir is moved onto fewer hosts as soon as they\n"
      "                      have the room; binpack and locality move it only once one\n"
      "                      host can hold it all, spread never)\n"
      "  --threads-per-host K\n"
      "                      with --cluster and without -np: an OpenMP job whose outermost\n"
      "                      parallel regions spread over ceil(OMP_NUM_THREADS / K) hosts,\n"
      "                      K threads a host; main() runs on the first. Barriers, locks,\n"
      "                      criticals, atomics, single, dynamic/ordered loops and\n"
      "                      reductions inside such a region go through the main host\n"
      "                      (--dir works with --cluster: each host opens the grants and\n"
      "                      runs the job in this working directory; it refuses a grant\n"
      "                      outside its synergyd --allow-dir directories)\n"
      "  --token-file FILE   with --cluster or --hypervisor: the token (required)\n"
      "  --cluster-part FILE with -np: run one host's part of a job spread over hosts, as\n"
      "                      described in FILE (synergyd starts this; not for direct use)\n"
      "  --checkpoint-program FILE\n"
      "                      with --cluster-part and --checkpoint-every: the program as the\n"
      "                      client names it, recorded for --resume (synergyd passes it)\n"
      "  --checkpoint-host-local\n"
      "                      with --cluster-part: the checkpoint dir is this host's own\n"
      "                      (synergyd --checkpoint-root); send this part's share of each\n"
      "                      checkpoint to part 0 as well (synergyd passes it)\n"
      "  --checkpoint-mirror-name D\n"
      "                      with --checkpoint-host-local: the client's checkpoint dir,\n"
      "                      which a job on one host names to the host that keeps its\n"
      "                      second copy (synergyd passes it)\n"
      "  --resume-sequence N with --cluster-part and --resume: resume from checkpoint N,\n"
      "                      the one the cluster state records (the directory's file, or\n"
      "                      the one it replaced); refuse any other (synergyd passes it)\n"
      "  --checkpoint-every SECONDS\n"
      "                      with -np: suspend every rank at the first barrier, bcast,\n"
      "                      (all)reduce or (all)gather on MPI_COMM_WORLD after each\n"
      "                      interval, once the last checkpoint is written (0: at every\n"
      "                      one, after the last write), take a consistent snapshot of\n"
      "                      the job and rewind each rank into a fresh instance\n"
      "                      (SYNERGY_CHECKPOINT_STATS=1: print counts)\n"
      "  --checkpoint-dir D  with --checkpoint-every: write each checkpoint to\n"
      "                      D/checkpoint.syck (versioned, checksummed, replaced atomically);\n"
      "                      with --cluster required, and the same shared path on every host;\n"
      "                      with --cluster alone: the job can be moved (synergy-cluster\n"
      "                      migrate) and checkpoints only to move\n"
      "  --resume D          instead of a program: resume the job checkpointed in D (its\n"
      "                      program, -np, arguments, --dir and --env) at its last\n"
      "                      checkpoint; stdout and stderr files (append with >>) are cut\n"
      "                      back to the checkpoint. With --cluster: a cluster job's\n"
      "                      checkpoint, placed again on the hosts that fit now (stdout\n"
      "                      only is cut back)\n"
      "  --fragment K        with --cluster: start the ranks cut over K hosts (near-equal\n"
      "                      consecutive shares on the hosts with the most free slots)\n"
      "  --consolidate-at P%% --expected-barriers B\n"
      "                      with --cluster: once P%% of the job's B expected barrier\n"
      "                      control points have passed (the first collective on\n"
      "                      MPI_COMM_WORLD at or after number ceil(P*B/100)), move every\n"
      "                      rank to the job's host with the most ranks that has the slots\n"
      "                      for all. Moving stops every part at that control point (no\n"
      "                      message in flight), writes a checkpoint to --checkpoint-dir D\n"
      "                      (required, shared by the hosts) and restarts the job from it\n"
      "                      on the new hosts as a new cluster job; a move whose target\n"
      "                      lacks the slots is aborted with a note and the job goes on\n"
      "                      (SYNERGY_FORCE_MIGRATION=RANKS@N:HOST, a test hook: move\n"
      "                      RANKS, e.g. 1 or 0,2, to HOST at control point N)\n"
      "  --dsm               run OpenMP threads and pthreads on copy-on-write replicas of\n"
      "                      memory that meet through byte-wise diffs, as on several hosts\n"
      "                      (at most 4096 threads at a time)\n"
      "                      (SYNERGY_DSM_STATS=1: print replica and diff counts at exit)\n"
      "  --max-memory BYTES  cap each linear memory (each MPI rank's; threads share one):\n"
      "                      memory.grow past it fails, so malloc returns NULL, and a\n"
      "                      module needing more initially is refused. Suffixes K, M, G\n"
      "                      (= KiB, MiB, GiB) are powers of 1024. For an engine: refuse\n"
      "                      a design whose state (widths x depths) is larger\n"
      "  --time-limit SECONDS\n"
      "                      wall-clock limit (decimals allowed) from the start, after\n"
      "                      compilation: the guest traps with 'time limit exceeded'; one\n"
      "                      blocked in a host call is ended 1 s later; an engine stops\n"
      "                      with a message. Exit status %d in every case\n"
      "  --eval-limit SECONDS\n"
      "                      engines: the longest one evaluation may run without returning\n"
      "                      to the host (default 10); a loop that never ends inside one\n"
      "                      is stopped with a message and status %d\n"
      "  --engine compiled|software|auto\n"
      "                      for an engine: start in software and hand off to the\n"
      "                      compiled engine when it is built, or start on it when it\n"
      "                      is cached (auto, the default); a design the software engine\n"
      "                      cannot run waits for the compiled engine, with a note naming\n"
      "                      the construct; a run that ends first exits at once and\n"
      "                      leaves a build that holds a build slot to fill the cache.\n"
      "                      compiled: wait for the Verilator build; software: the\n"
      "                      software engine alone. With --hypervisor only compiled\n"
      "                      (the default there): a tenant runs on the compiled engine\n"
      "  --switch-at-tick N  with --engine auto: hand off at the end of tick N (for tests)\n"
      "  --timeline FILE.csv for an engine: every 100 ms, a row of time_s, ticks so far,\n"
      "                      ticks_per_s, tasks trapped so far, tasks_per_s and the engine\n"
      "                      running (none while building, software, compiled); the\n"
      "                      switch to the compiled engine adds a row when it happens\n"
      "  --hypervisor HOST:PORT\n"
      "                      for an engine: run it on the synergy-hv at HOST:PORT (with\n"
      "                      --token-file, its token); tasks, files and output stay here\n"
      "  --help              print this help\n"
      "  --version           print the version\n"
      "  --register-binfmt   (root) have binfmt_misc run every wasm file through this\n"
      "                      synergy-run, so that `./prog.wasm args` runs like\n"
      "                      `synergy-run prog.wasm args` (synergy-cc's output is\n"
      "                      executable); replaces an earlier registration. Exit status\n"
      "                      1 when binfmt_misc is not mounted or disabled, or the\n"
      "                      caller may not register\n"
      "  --unregister-binfmt remove that registration\n"
      "\n"
      "environment:\n"
      "  SYNERGY_CACHE_DIR   where compiled code is cached (default: $XDG_CACHE_HOME/synergy,\n"
      "                      else $HOME/.cache/synergy; with none of them set there is no\n"
      "                      cache and runs fail). It must be yours and closed to others\n"
      "                      (created 0700); every object is checked against its SHA-256\n"
      "                      before it is loaded, and rebuilt when it does not match\n"
      "                      (a record of an unchanged object's identity skips the hash)\n"
      "\n"
      "A .wasm program must be a regular file of at most 1 GiB whose import and export\n"
      "names hold only letters, digits and _ . $ -\n"
      "\n"
      "exit status: the guest's exit code; %d when the guest traps; 2 for bad input.\n"
      "\n"
      "examples:\n"
      "  synergy-run hello.wasm arg1 arg2\n"
      "  sudo synergy-run --register-binfmt && ./hello.wasm arg1 arg2\n"
      "  synergy-run --dir ./data:/data --env MODE=fast app.wasm /data/input.txt\n"
      "  synergy-run -np 4 --tag-output ring.wasm\n"
      "  OMP_NUM_THREADS=4 synergy-run --dsm sgd.wasm\n"
      "  OMP_WAIT_POLICY=passive synergy-run omp.wasm   # waiting threads sleep at once\n"
      "  synergy-run --max-memory 256MiB --time-limit 2.5 untrusted.wasm\n"
      "  synergy-run --cluster redis://127.0.0.1:6379 --token-file token -np 4 ring.wasm\n"
      "  synergy-run --cluster redis://127.0.0.1:6379 --token-file token -np 4 \\\n"
      "              --checkpoint-every 5 --checkpoint-dir /shared/ck ring.wasm >> out\n"
      "  synergy-run --cluster redis://127.0.0.1:6379 --token-file token --resume /shared/ck >> out\n",
      kTrapExitCode, kTrapExitCode, kTrapExitCode);
}

// A closed fd 0, 1 or 2 would be the number the next open() returns, and
// whatever file got it (a guest's memory file, a cached object) would then
// receive the guest's stdout or be read as its stdin. Holding /dev/null there
// first keeps every later file off the standard descriptors.
void holdStandardDescriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    int held = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    // open() returns the lowest free number, which is `fd` itself.
    if (held != fd) std::_Exit(2);
  }
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
        arg == "--max-memory" || arg == "--time-limit" || arg == "--eval-limit" || arg == "--cluster" ||
        arg == "--policy" || arg == "--token-file" || arg == "--cluster-part" || arg == "--engine" ||
        arg == "--switch-at-tick" || arg == "--hypervisor" || arg == "--checkpoint-every" ||
        arg == "--checkpoint-dir" || arg == "--checkpoint-program" || arg == "--resume" ||
        arg == "--checkpoint-mirror-name" || arg == "--resume-sequence" ||
        arg == "--timeline" || arg == "--fragment" || arg == "--consolidate-at" ||
        arg == "--expected-barriers") {
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
  holdStandardDescriptors();
  // Started by synergyd ahead of a job (cluster/JobWorker.h): the job's
  // command line arrives on stdin, and is then run as if given here.
  std::vector<std::string> workerArguments;
  std::vector<char*> workerArgv;
  if (argc == 2 && std::strcmp(argv[1], cluster::kJobWorkerOption) == 0) {
    std::string error;
    if (!cluster::receiveWorkerCommandLine(workerArguments, error)) fail(error);
    workerArgv.push_back(argv[0]);
    for (std::string& argument : workerArguments) workerArgv.push_back(argument.data());
    argc = int(workerArgv.size());
    workerArgv.push_back(nullptr);
    argv = workerArgv.data();
  }
  if (programIsEngine(argc, argv)) {
    // --hypervisor HOST:PORT --token-file FILE: the engine runs there, the
    // tasks here (hypervisor/RemoteEngine.h).
    std::vector<std::string> args;
    std::string hypervisorAddress, tokenFile;
    for (int k = 1; k < argc; ++k) {
      std::string arg = argv[k];
      if ((arg == "--hypervisor" || arg == "--token-file") && k + 1 < argc)
        (arg == "--hypervisor" ? hypervisorAddress : tokenFile) = argv[++k];
      else
        args.push_back(arg);
    }
    if (hypervisorAddress.empty() != tokenFile.empty())
      fail("--hypervisor and --token-file go together for an engine");
    engine::RemoteEngineFactory remote;
    if (!hypervisorAddress.empty()) {
      std::string token, host, error;
      uint16_t port = 0;
      if (!hypervisor::parseHostPort(hypervisorAddress, host, port, /*allowAnyPort=*/false, error))
        fail("--hypervisor: " + error);
      if (!transport::readClusterToken(tokenFile, token, error)) fail(error);
      remote = hypervisor::remoteEngineFactory(hypervisorAddress, tokenFile);
    }
    return engine::runEngineCommandLine(args, std::move(remote));
  }
  granule::GranuleConfig config;
  std::string program;
  int ranks = 0;  // 0: not an MPI job
  bool tagOutput = false;
  std::optional<bool> bindToCores;
  bool dsm = false;
  bool onCluster = false;
  scheduler::RemoteJobOptions clusterOptions;
  std::string partFile;  // this host's part of a job spread over hosts
  unsigned threadsPerHost = 0;  // 0: not a thread job
  std::optional<checkpoint::CheckpointPolicy> checkpoints;
  std::string checkpointDir;
  std::string checkpointProgram;  // a part's: the program as the client names it
  uint64_t resumeSequence = 0;       // a part's: the checkpoint to resume from
  std::string checkpointMirrorName;  // a part's: the client's D, for its mirror host
  bool checkpointHostLocal = false;  // a part's: its directory is its host's own
  std::string resumeDir;
  // --consolidate-at P% of --expected-barriers B control points.
  double consolidateAtPercent = 0;
  unsigned expectedBarriers = 0;
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
    if (arg == "--register-binfmt" || arg == "--unregister-binfmt") {
      std::string done, error;
      char self[PATH_MAX];
      ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
      if (length < 0) fail(std::string("cannot find this executable: ") + std::strerror(errno));
      bool ok = arg == "--register-binfmt"
                    ? driver::registerBinfmt(std::string(self, size_t(length)), done, error)
                    : driver::unregisterBinfmt(done, error);
      if (!ok) {
        std::fprintf(stderr, "synergy-run: error: %s\n", error.c_str());
        return 1;
      }
      std::printf("synergy-run: %s\n", done.c_str());
      return 0;
    }
    if (arg == "--env") {
      std::string kv = requireValue(i, argc, argv);
      if (kv.find('=') == std::string::npos) fail("--env expects KEY=VALUE, got '" + kv + "'");
      config.env.push_back(kv);
    } else if (arg == "--dir") {
      std::string spec = requireValue(i, argc, argv);
      std::string error;
      std::optional<granule::Preopen> preopen = sandbox::parseGrant(spec, error);
      if (!preopen) fail("--dir: " + error);
      config.preopens.push_back(*preopen);
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
    } else if (arg == "--max-memory") {
      std::string error;
      auto bytes = util::parseByteCount(requireValue(i, argc, argv), arg, error);
      if (!bytes) fail(error);
      granule::setMemoryLimit(*bytes);
    } else if (arg == "--time-limit") {
      std::string error;
      auto budget = util::parseSeconds(requireValue(i, argc, argv), arg, error);
      if (!budget) fail(error);
      granule::setTimeLimit(*budget);
    } else if (arg == "--cluster") {
      std::string url = requireValue(i, argc, argv), error;
      if (!cluster::parseStateUrl(url, clusterOptions.state, error)) fail(error);
      onCluster = true;
    } else if (arg == "--policy") {
      clusterOptions.policy = requireValue(i, argc, argv);
      if (clusterOptions.policy != "binpack" && clusterOptions.policy != "spread" &&
          clusterOptions.policy != "locality" && clusterOptions.policy != "compact")
        fail("--policy expects binpack, spread, locality or compact, got '" +
             clusterOptions.policy + "'");
    } else if (arg == "--token-file") {
      clusterOptions.tokenFile = requireValue(i, argc, argv);
    } else if (arg == "--checkpoint-every") {
      std::string text = requireValue(i, argc, argv);
      char* end = nullptr;
      double interval = std::strtod(text.c_str(), &end);
      if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos || *end ||
          !(interval >= 0 && interval <= 1e6))
        fail("--checkpoint-every expects seconds from 0 to 1000000, got '" + text + "'");
      checkpoints.emplace().intervalSeconds = interval;
    } else if (arg == "--checkpoint-dir") {
      checkpointDir = requireValue(i, argc, argv);
    } else if (arg == "--checkpoint-host-local") {
      checkpointHostLocal = true;
    } else if (arg == "--checkpoint-mirror-name") {
      checkpointMirrorName = requireValue(i, argc, argv);
    } else if (arg == "--resume-sequence") {
      std::string text = requireValue(i, argc, argv);
      if (!util::parseDecimal(text, UINT64_MAX >> 1, resumeSequence) || resumeSequence == 0)
        fail("--resume-sequence expects a checkpoint number from 1, got '" + text + "'");
    } else if (arg == "--checkpoint-program") {
      checkpointProgram = requireValue(i, argc, argv);
    } else if (arg == "--resume") {
      resumeDir = requireValue(i, argc, argv);
      if (resumeDir.empty()) fail("--resume expects a checkpoint directory");
    } else if (arg == "--threads-per-host") {
      std::string count = requireValue(i, argc, argv);
      char* end = nullptr;
      long value = std::strtol(count.c_str(), &end, 10);
      if (count.empty() || *end || value < 1 || value > 4096)
        fail("--threads-per-host expects a thread count from 1 to 4096, got '" + count + "'");
      threadsPerHost = unsigned(value);
    } else if (arg == "--cluster-part") {
      partFile = requireValue(i, argc, argv);
    } else if (arg == "--fragment" || arg == "--expected-barriers") {
      std::string count = requireValue(i, argc, argv);
      char* end = nullptr;
      long value = std::strtol(count.c_str(), &end, 10);
      if (count.empty() || *end || value < 1 || value > 1000000000)
        fail(arg + " expects a count from 1 to 1000000000, got '" + count + "'");
      (arg == "--fragment" ? clusterOptions.fragment : expectedBarriers) = unsigned(value);
    } else if (arg == "--consolidate-at") {
      std::string text = requireValue(i, argc, argv);
      char* end = nullptr;
      consolidateAtPercent = std::strtod(text.c_str(), &end);
      if (text.empty() || text.find_first_not_of("0123456789.%") != std::string::npos ||
          std::string(end) != "%" || !(consolidateAtPercent > 0 && consolidateAtPercent <= 100))
        fail("--consolidate-at expects a percentage above 0% and at most 100%, got '" + text + "'");
    } else if (arg == "--") {
      ++i;
      break;
    } else if (arg.size() > 1 && arg[0] == '-') {
      fail("unknown option '" + arg + "' (see --help)");
    } else {
      break;
    }
  }
  // A job that may be moved checkpoints into a shared directory to do it
  // (cluster/Migration.h), at no interval unless --checkpoint-every says.
  if (const char* forced = std::getenv("SYNERGY_FORCE_MIGRATION"); forced && onCluster) {
    std::string error;
    if (!cluster::parseForcedMigration(forced, clusterOptions.forcedMigration.emplace(), error))
      fail(error);
  }
  if ((consolidateAtPercent > 0) != (expectedBarriers > 0))
    fail("--consolidate-at and --expected-barriers go together");
  if (consolidateAtPercent > 0)
    clusterOptions.consolidateAt =
        std::max<uint64_t>(1, uint64_t(std::ceil(consolidateAtPercent * expectedBarriers / 100)));
  bool migrating = clusterOptions.fragment || clusterOptions.consolidateAt ||
                   clusterOptions.forcedMigration;
  if (migrating && (!onCluster || checkpointDir.empty() || !resumeDir.empty()))
    fail("--fragment, --consolidate-at and SYNERGY_FORCE_MIGRATION need --cluster and "
         "--checkpoint-dir, a directory every host shares");
  if (onCluster && resumeDir.empty() && !checkpointDir.empty() && !checkpoints)
    checkpoints.emplace().intervalSeconds = cluster::kMoveOnlyCheckpointIntervalSeconds;
  if (!checkpointDir.empty() && !checkpoints) fail("--checkpoint-dir needs --checkpoint-every");
  if (onCluster && checkpoints && checkpointDir.empty())
    fail("--checkpoint-every with --cluster needs --checkpoint-dir, a directory every host shares");
  // The hosts find the checkpoint directory by its absolute path.
  auto absolute = [](const std::string& path) {
    char resolved[PATH_MAX];
    if (!realpath(path.c_str(), resolved)) fail("no such directory: " + path);
    return std::string(resolved);
  };
  if (!resumeDir.empty() && onCluster) {
    if (i < argc) fail("--resume takes the program and its arguments from the checkpoint");
    if (ranks || dsm || bindToCores || !config.preopens.empty() || !config.env.empty())
      fail("--cluster --resume takes only --checkpoint-every, --checkpoint-dir, --policy, "
           "--token-file and --tag-output");
    if (clusterOptions.tokenFile.empty()) fail("--cluster needs --token-file");
    if (!checkpointDir.empty() && absolute(checkpointDir) != absolute(resumeDir))
      fail("--cluster --resume D goes on checkpointing into D only");
    clusterOptions.tagOutput = tagOutput;
    clusterOptions.checkpointIntervalMicroseconds =
        checkpoints ? uint64_t(checkpoints->intervalSeconds * 1e6)
                    : cluster::kMaxCheckpointIntervalMicroseconds;
    return scheduler::resumeRemoteJob(clusterOptions, absolute(resumeDir));
  }
  if (!resumeDir.empty() && partFile.empty()) {
    // The checkpoint names the program, its arguments, -np and the job's
    // --dir grants and --env variables.
    if (i < argc) fail("--resume takes the program and its arguments from the checkpoint");
    if (ranks || onCluster || !partFile.empty() || dsm || !config.preopens.empty() ||
        !config.env.empty())
      fail("--resume takes only --checkpoint-every, --checkpoint-dir, --tag-output, --bind-to "
           "and the limits");
    if (!checkpointDir.empty() && !checkpoints) fail("--checkpoint-dir needs --checkpoint-every");
    signal(SIGPIPE, SIG_IGN);
    mpi::JobOptions job;
    job.tagOutput = tagOutput;
    job.bindToCores = bindToCores;
    job.showProgress = isatty(STDERR_FILENO);
    if (checkpoints) checkpoints->directory = checkpointDir;
    return checkpoint::resumeCheckpointedJob(resumeDir, checkpoints, job);
  }
  if (i >= argc) fail("no program given (see --help)");
  program = argv[i];
  for (; i < argc; ++i) config.args.push_back(argv[i]);
  if (access(program.c_str(), F_OK) != 0) fail("no such file: " + program);
  // A cluster job's grants are opened and checked on the hosts that run it.
  if (!onCluster) {
    for (const granule::Preopen& preopen : config.preopens)
      if (access(preopen.hostPath.c_str(), F_OK) != 0)
        fail("--dir: no such directory: " + preopen.hostPath);
    if (auto problem = wasi::checkPreopens(config)) fail(*problem);
  }
  if (checkpoints && ranks == 0 && !onCluster) fail("--checkpoint-every needs -np");
  if (threadsPerHost && (!onCluster || ranks))
    fail("--threads-per-host needs --cluster and no -np");
  if (threadsPerHost && checkpoints)
    fail("--checkpoint-every is not supported with --threads-per-host yet");
  if (threadsPerHost) {
    std::string error;
    ranks = int(cluster::prepareThreadJob(config.env, threadsPerHost, error));
    if (!ranks) fail(error);
    clusterOptions.policy = "spread";
    clusterOptions.onePartPerHost = true;
  }
  if (onCluster) {
    if (ranks == 0) fail("--cluster needs -np (or --threads-per-host)");
    if (clusterOptions.tokenFile.empty()) fail("--cluster needs --token-file");
    if (dsm || bindToCores) fail("--dsm and --bind-to are not supported with --cluster");
    clusterOptions.program = program;
    clusterOptions.arguments = config.args;
    clusterOptions.environment = config.env;
    clusterOptions.grants = config.preopens;
    clusterOptions.ranks = unsigned(ranks);
    clusterOptions.tagOutput = tagOutput;
    if (checkpoints) {
      clusterOptions.checkpointDirectory = absolute(checkpointDir);
      clusterOptions.checkpointIntervalMicroseconds = uint64_t(checkpoints->intervalSeconds * 1e6);
      clusterOptions.checkpointProgram = absolute(program);
    }
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
    if (!partFile.empty()) {
      if (unsigned perHost = cluster::threadsPerHostOf(config.env))
        return cluster::runThreadJobPart(partFile, job, perHost);
      if (!checkpoints) return cluster::runJobPart(partFile, job);
      cluster::PartCheckpointing how;
      how.policy = *checkpoints;
      how.policy.directory = checkpointDir;
      how.policy.hostLocalDirectory = checkpointHostLocal;
      how.resume = !resumeDir.empty();
      how.clientProgram = checkpointProgram;
      how.mirrorName = checkpointMirrorName;
      how.resumeSequence = resumeSequence;
      if (checkpointDir.empty() || checkpointProgram.empty() ||
          (how.resume && resumeDir != checkpointDir) || (resumeSequence != 0 && !how.resume))
        fail("--cluster-part with --checkpoint-every needs --checkpoint-dir and "
             "--checkpoint-program (and --resume only from that directory, --resume-sequence "
             "only with --resume)");
      return cluster::runJobPart(partFile, job, &how);
    }
    if (checkpoints) {
      checkpoints->directory = checkpointDir;
      return checkpoint::runCheckpointedJob(job, *checkpoints);
    }
    if (checkpoint::liveMoveRequested()) {
      checkpoint::CheckpointPolicy never;
      never.intervalSeconds = 1e300;
      return checkpoint::runCheckpointedJob(job, never);
    }
    return mpi::runJob(job);
  }
  if (!partFile.empty()) fail("--cluster-part needs -np");
  if (tagOutput) fail("--tag-output needs -np");
  if (bindToCores) fail("--bind-to needs -np");

  std::string error;
  auto module = granule::Module::loadFile(program, error, isatty(STDERR_FILENO));
  if (!module) fail(error);

  granule::Granule granule(module, config);
  process::serveFork(module, granule, kGuestNativeStackBytes);
  if (dsm) granule.extension<omp::ThreadMember>().group().setDsm(true);
  auto reportAtEnd = [] {
    const char* stats = std::getenv("SYNERGY_DSM_STATS");
    if (!stats || !std::strcmp(stats, "0")) return;
    snapshot::DsmStatistics dsmStats = snapshot::dsmStatistics();
    std::fprintf(stderr,
                 "synergy-run: dsm: %llu replicas, %llu pushes (%llu bytes), %llu pulls (%llu "
                 "pages)\n",
                 (unsigned long long)dsmStats.replicas, (unsigned long long)dsmStats.pushes,
                 (unsigned long long)dsmStats.pushedBytes, (unsigned long long)dsmStats.pulls,
                 (unsigned long long)dsmStats.pulledPages);
  };
  // Also when a guest thread's exit() or trap ends the process.
  granule::setProcessEndHook(reportAtEnd);
  granule::RunResult result;
  // The guest runs on this thread, on a stack deep enough for the recursion
  // native programs get away with, whose exhaustion is a clean trap.
  bool ran = granule::runOnFreshHostStack(kGuestNativeStackBytes, [&] {
    // Before _start: a module refused here (one that needs more memory than
    // --max-memory) is bad input, not a guest trap.
    if (!granule.instantiate(error)) fail(program + ": " + error);
    result = granule.runStart();
  });
  if (!ran) fail("cannot map a native stack for the guest: " + std::string(std::strerror(errno)));
  // Forked children the guest left running finish before the process ends
  // (a trap, below, ends them with it).
  if (result.kind != granule::RunResult::Kind::Trapped) process::waitForForkedProcesses();
  std::fflush(stdout);
  granule::setProcessEndHook({});
  reportAtEnd();
  if (result.kind == granule::RunResult::Kind::Trapped) {
    std::fprintf(stderr, "trap: %s in %s\n", result.trapReason.c_str(),
                 result.trapFunction.c_str());
    std::fflush(stderr);
    // Other guest threads may still run on the granule's memory (the main
    // thread was caught first by --time-limit inside a parallel region):
    // end without destroying the granule under them, as a thread's trap does.
    std::_Exit(kTrapExitCode);
  }
  // What is left (the linear memory's reservation, the loaded object, the
  // guest's open files, the granule's threads) is the kernel's to release at
  // exit; unmapping and closing it first, and running static destructors,
  // only delayed the exit status. Host output is flushed here; the guest's
  // own went out unbuffered through fd_write.
  std::fflush(nullptr);
  std::_Exit(result.exitCode);
}

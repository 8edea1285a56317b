//===- synergy-hv.cpp - the Synergy hypervisor daemon ----------------------===//
//
// Thin main over hypervisor/Hypervisor.h: listens on one address for tenant
// runtimes (synergy-run --hypervisor) and synergy-hv-ctl, hosts their
// engines, and stops cleanly on SIGTERM or SIGINT: it stops accepting, lets a
// running build finish and finalizes every engine. Once listening it prints
// "synergy-hv: listening on ADDRESS:PORT" on stdout (with the port chosen
// when --listen gave port 0), so scripts can start it on a free port.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "hypervisor/HypervisorClient.h"
#include "hypervisor/Hypervisor.h"
#include "synergy/ToolPaths.h"
#include "transport/ClusterToken.h"
#include "util/LimitOptions.h"

using namespace synergy;

namespace {

void printUsage() {
  std::printf(
      "usage: synergy-hv --listen ADDRESS:PORT --token-file FILE\n"
      "\n"
      "Hosts the engines of Verilog designs run with `synergy-run --hypervisor`. Each\n"
      "tenant's runtime submits its .eng and drives the engine through the engine ABI\n"
      "over the network; its tasks, files and output stay with the tenant.\n"
      "\n"
      "options:\n"
      "  --listen ADDRESS:PORT  IP address and port to listen on ([v6]:PORT for IPv6;\n"
      "                         port 0 picks a free one, printed on stdout)\n"
      "  --token-file FILE      the shared secret every client presents (16-256 bytes,\n"
      "                         a file readable by its owner only)\n"
      "  --admin-token-file FILE\n"
      "                         a second secret, for the operator only: synergy-hv-ctl\n"
      "                         migrate must present it (tenants hold --token-file, so\n"
      "                         without this file no engine can be migrated)\n"
      "  --max-engines N        engines hosted at once (default 64)\n"
      "  --max-tenant-state BYTES\n"
      "                         the state one tenant's engines may hold together\n"
      "                         (K, M, G suffixes; default 64M): a larger design is\n"
      "                         refused before anything is built\n"
      "  --recombine-every N    test hook: rebuild the combined program (a cache hit)\n"
      "                         and move every engine into it after every N engine\n"
      "                         requests, even for a single engine\n"
      "  --help                 print this help\n"
      "  --version              print the version\n"
      "\n"
      "Engines are built with Verilator into the engine cache (SYNERGY_CACHE_DIR, as\n"
      "for synergy-run), so a design built before starts without a compile. When the\n"
      "running engines change, they are compiled together into one combined program\n"
      "in the background (cached by content) and each moves into it, state and all,\n"
      "between two of its ticks.\n"
      "SIGTERM or SIGINT stops the daemon: running engines are finalized.\n"
      "\n"
      "example:\n"
      "  synergy-hv --listen 127.0.0.1:7200 --token-file token &\n"
      "  synergy-run --hypervisor 127.0.0.1:7200 --token-file token design.eng\n"
      "  synergy-hv-ctl --connect 127.0.0.1:7200 --token-file token status\n");
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "synergy-hv: error: %s\n", message.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen, tokenFile, adminTokenFile;
  unsigned long maxEngines = 64;
  unsigned long long recombineEvery = 0;
  uint64_t maxTenantState = uint64_t(64) << 20;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printUsage();
      return 0;
    }
    if (arg == "--version") {
      std::printf("synergy-hv %s\n", toolpaths::kVersion);
      return 0;
    }
    if (i + 1 >= argc) fail("unknown or incomplete option '" + arg + "' (see --help)");
    std::string value = argv[++i];
    if (arg == "--listen") {
      listen = value;
    } else if (arg == "--token-file") {
      tokenFile = value;
    } else if (arg == "--admin-token-file") {
      adminTokenFile = value;
    } else if (arg == "--max-engines") {
      char* end = nullptr;
      maxEngines = std::strtoul(value.c_str(), &end, 10);
      if (value.empty() || *end || value[0] == '-' || maxEngines < 1 || maxEngines > 4096)
        fail("--max-engines expects 1 to 4096, got '" + value + "'");
    } else if (arg == "--max-tenant-state") {
      std::string error;
      std::optional<uint64_t> bytes = util::parseByteCount(value, arg, error);
      if (!bytes) fail(error);
      maxTenantState = *bytes;
    } else if (arg == "--recombine-every") {
      char* end = nullptr;
      recombineEvery = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end || value[0] == '-' || recombineEvery < 1 || recombineEvery > 1000000000)
        fail("--recombine-every expects 1 to 10^9 requests, got '" + value + "'");
    } else {
      fail("unknown option '" + arg + "' (see --help)");
    }
  }
  if (listen.empty() || tokenFile.empty()) fail("--listen and --token-file are required (see --help)");
  std::string host, error;
  uint16_t port = 0;
  if (!hypervisor::parseHostPort(listen, host, port, /*allowAnyPort=*/true, error)) fail("--listen: " + error);
  hypervisor::HypervisorConfig config;
  if (!transport::readClusterToken(tokenFile, config.token, error)) fail(error);
  if (!adminTokenFile.empty()) {
    if (!transport::readClusterToken(adminTokenFile, config.adminToken, error)) fail(error);
    if (transport::tokensMatch(config.token, config.adminToken))
      fail("--admin-token-file must differ from --token-file: every tenant holds that one");
  }
  config.maxEngines = unsigned(maxEngines);
  config.maxTenantStateBytes = maxTenantState;
  config.recombineEveryRequests = recombineEvery;
  config.log = [](const std::string& line) { std::fprintf(stderr, "synergy-hv: %s\n", line.c_str()); };

  // Block the stop signals before any thread starts, so that only the main
  // thread's sigwait ever sees them.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  hypervisor::Hypervisor hv(std::move(config));
  if (!hv.listen(host, port, error)) fail(error);
  std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::printf("synergy-hv: listening on %s:%u\n", shown.c_str(), unsigned(hv.listeningPort()));
  std::fflush(stdout);
  int stopSignal = 0;
  sigwait(&stopSignals, &stopSignal);
  std::fprintf(stderr, "synergy-hv: %s: stopping\n", stopSignal == SIGTERM ? "SIGTERM" : "SIGINT");
  return 0;
}

//===- synergy-hv-ctl.cpp - ask a running synergy-hv about its state -------===//
//
// Thin main over hypervisor/HypervisorClient.h. `status` prints the
// hypervisor's report: tenants, engines, the combined program's generation
// and engines, the one compiling, the moves into it and their pauses, and
// how many engines and programs were compiled or found in the cache.
// `migrate ENGINE --to HOST:PORT` has the hypervisor send that engine's
// tenant, at its next tick boundary, to another hypervisor, which must
// accept the tenant's token (RemoteEngine.cpp carries the state over); it
// presents the hypervisor's admin token, which tenants do not hold.
//
//===----------------------------------------------------------------------===//
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hypervisor/HypervisorClient.h"
#include "hypervisor/HypervisorProtocol.h"
#include "transport/ClusterToken.h"
#include "synergy/ToolPaths.h"

using namespace synergy;

namespace {

void printUsage() {
  std::printf(
      "usage: synergy-hv-ctl --connect ADDRESS:PORT --token-file FILE status\n"
      "       synergy-hv-ctl --connect ADDRESS:PORT --token-file FILE --admin-token-file FILE\n"
      "                      migrate ENGINE --to HOST:PORT\n"
      "\n"
      "commands:\n"
      "  status   tenants, their engines, the combined program (generation, engines,\n"
      "           the one compiling, moves and their pauses), compiles and cache hits\n"
      "  migrate  move engine ENGINE (an id status lists) to the hypervisor at\n"
      "           HOST:PORT at its next tick boundary; its tenant carries the state\n"
      "           over and continues there, so that hypervisor must accept its token;\n"
      "           needs --admin-token-file, the file synergy-hv was given as its own\n"
      "\n"
      "examples:\n"
      "  synergy-hv-ctl --connect 127.0.0.1:7200 --token-file token status\n"
      "  synergy-hv-ctl --connect 127.0.0.1:7200 --token-file token --admin-token-file admin \\\n"
      "                 migrate 3 --to 127.0.0.2:7200\n");
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "synergy-hv-ctl: error: %s\n", message.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string address, tokenFile, adminTokenFile, command, engine, destination;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printUsage();
      return 0;
    }
    if (arg == "--version") {
      std::printf("synergy-hv-ctl %s\n", toolpaths::kVersion);
      return 0;
    }
    if ((arg == "--connect" || arg == "--token-file" || arg == "--admin-token-file" || arg == "--to") &&
        i + 1 < argc) {
      (arg == "--connect"            ? address
       : arg == "--to"               ? destination
       : arg == "--admin-token-file" ? adminTokenFile
                                     : tokenFile) = argv[++i];
    } else if (!arg.empty() && arg[0] != '-' && command.empty()) {
      command = arg;
    } else if (!arg.empty() && arg[0] != '-' && command == "migrate" && engine.empty()) {
      engine = arg;
    } else {
      fail("unknown or incomplete argument '" + arg + "' (see --help)");
    }
  }
  if (address.empty() || tokenFile.empty() || command.empty())
    fail("--connect, --token-file and a command are required (see --help)");
  if (command != "status" && command != "migrate") fail("unknown command '" + command + "' (see --help)");
  if (command == "migrate" && (engine.empty() || destination.empty() || adminTokenFile.empty()))
    fail("migrate needs an engine id, --to HOST:PORT and --admin-token-file (see --help)");
  std::string error;
  auto client = hypervisor::HypervisorClient::connect(address, tokenFile, error);
  if (!client) fail(error);
  if (command == "migrate") {
    std::string adminToken;
    if (!transport::readClusterToken(adminTokenFile, adminToken, error)) fail(error);
    if (!client->call(transport::FrameType::HvMigrate,
                      hypervisor::textPayload(engine + " " + destination + "\n" + adminToken),
                      transport::FrameType::HvDone, error))
      fail(error);
    std::printf("engine %s will migrate to %s at its next tick boundary\n", engine.c_str(), destination.c_str());
    return 0;
  }
  auto report = client->call(transport::FrameType::HvStatus, {}, transport::FrameType::HvStatusReport, error);
  if (!report) fail(error);
  std::fputs(hypervisor::payloadText(*report).c_str(), stdout);
  return 0;
}

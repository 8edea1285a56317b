//===- synergy-hv-ctl.cpp - ask a running synergy-hv about its state -------===//
//
// Thin main over hypervisor/HypervisorClient.h. `status` prints the
// hypervisor's report: tenants, engines, the combined program's generation
// and engines, the one compiling, the moves into it and their pauses, and
// how many engines and programs were compiled or found in the cache.
//
//===----------------------------------------------------------------------===//
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hypervisor/HypervisorClient.h"
#include "hypervisor/HypervisorProtocol.h"
#include "synergy/ToolPaths.h"

using namespace synergy;

namespace {

void printUsage() {
  std::printf(
      "usage: synergy-hv-ctl --connect ADDRESS:PORT --token-file FILE status\n"
      "\n"
      "commands:\n"
      "  status   tenants, their engines, the combined program (generation, engines,\n"
      "           the one compiling, moves and their pauses), compiles and cache hits\n"
      "\n"
      "example:\n"
      "  synergy-hv-ctl --connect 127.0.0.1:7200 --token-file token status\n");
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "synergy-hv-ctl: error: %s\n", message.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string address, tokenFile, command;
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
    if ((arg == "--connect" || arg == "--token-file") && i + 1 < argc) {
      (arg == "--connect" ? address : tokenFile) = argv[++i];
    } else if (!arg.empty() && arg[0] != '-' && command.empty()) {
      command = arg;
    } else {
      fail("unknown or incomplete argument '" + arg + "' (see --help)");
    }
  }
  if (address.empty() || tokenFile.empty() || command.empty())
    fail("--connect, --token-file and a command are required (see --help)");
  if (command != "status") fail("unknown command '" + command + "' (see --help)");
  std::string error;
  auto client = hypervisor::HypervisorClient::connect(address, tokenFile, error);
  if (!client) fail(error);
  auto report = client->call(transport::FrameType::HvStatus, {}, transport::FrameType::HvStatusReport, error);
  if (!report) fail(error);
  std::fputs(hypervisor::payloadText(*report).c_str(), stdout);
  return 0;
}

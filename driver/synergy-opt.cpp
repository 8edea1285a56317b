//===- synergy-opt.cpp - run Synergy wasm passes on a module ---------------===//
//
// A thin main over passes/: parses flags, looks passes up in the registry and
// hands them to the pass runner, which does all the work (and contains any
// Binaryen failure on bad input).
//
//===----------------------------------------------------------------------===//
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "passes/PassRegistry.h"
#include "passes/PassRunner.h"
#include "passes/Pipeline.h"

namespace {

constexpr const char* kUsage = R"(usage: synergy-opt [options] <in.wasm> -o <out.wasm>

Runs Synergy's wasm passes, in the order given, on a module and writes the
result. Without any --pass the module is only checked and rewritten.

options:
  --pass=<flag>        run one pass (see --list-passes); repeatable
  --default-pipeline   run the pipeline synergy-cc runs on every linked module
  -o <file>            output module (required)
  --list-passes        list the passes with a one-line description
  --help               show this help

environment:
  SYNERGY_DEBUG_PASSES=1   print each pass and validate the module after it

examples:
  synergy-opt --default-pipeline app.wasm -o app.opt.wasm
  synergy-opt --pass=lower-atomics threads.wasm -o threads.lowered.wasm
  synergy-opt --pass=control-point-census mpi.wasm -o mpi.wasm
  llvm-objcopy --dump-section synergy.control_points=cp.txt mpi.wasm
)";

int usageError(const std::string& message) {
  std::fprintf(stderr, "synergy-opt: error: %s (see --help)\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace synergy::passes;
  std::vector<const PassInfo*> passes;
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--list-passes") {
      for (const PassInfo& pass : registeredPasses())
        std::printf("  %-26.*s %.*s\n", int(pass.flag.size()), pass.flag.data(),
                    int(pass.description.size()), pass.description.data());
      return 0;
    }
    if (arg.starts_with("--pass=")) {
      const PassInfo* pass = findPass(arg.substr(7));
      if (!pass) return usageError("unknown pass '" + std::string(arg.substr(7)) + "'");
      passes.push_back(pass);
    } else if (arg == "--default-pipeline") {
      for (const PassInfo* pass : defaultPipelinePasses()) passes.push_back(pass);
    } else if (arg == "-o") {
      if (++i == argc) return usageError("-o needs a file name");
      output = argv[i];
    } else if (arg.starts_with("-") && arg != "-") {
      return usageError("unknown option '" + std::string(arg) + "'");
    } else if (input.empty()) {
      input = arg;
    } else {
      return usageError("more than one input file");
    }
  }
  if (input.empty()) return usageError("no input file");
  if (output.empty()) return usageError("no output file (-o)");

  std::string error;
  if (!runPassesOnFile(input, output, passes, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  return 0;
}

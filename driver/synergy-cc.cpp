//===- synergy-cc.cpp - the cc-compatible granule compiler -----------------===//
//
// synergy-cc and synergy-c++ (a link to the same program; argv[0] picks the
// language) take cc's command line and build wasm32-wasi granules: clang-19
// compiles, wasm-ld links, and the Synergy pass pipeline prepares every
// finished module for control points and migration. Build systems use it
// unchanged, through CC=synergy-cc or share/synergy/synergy-toolchain.cmake.
//
// Resources are found relative to this executable (<bin>/../share/synergy),
// so the build tree and an installed prefix behave the same.
//
//===----------------------------------------------------------------------===//
#include "frontends/c/ClangCommands.h"
#include "frontends/c/DriverArguments.h"
#include "frontends/c/ResponseFiles.h"
#include "frontends/c/ToolProcess.h"
#include "frontends/c/UnservedCalls.h"
#include "frontends/verilog/VerilogCompiler.h"
#include "passes/Pipeline.h"
#include "synergy/ToolPaths.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;
using namespace synergy::frontend_c;
namespace verilog = synergy::verilog;

namespace {

int reportError(const GranuleToolchain& toolchain, const std::string& message) {
  std::cerr << toolchain.driverName << ": error: " << message << '\n';
  return 1;
}

bool locateToolchain(const char* argv0, GranuleToolchain& toolchain, std::string& error) {
  // argv[0] chooses C or C++, as with cc and c++. The canonical name, not the
  // invoked one, is what clang sees: clang derives its mode from that name.
  toolchain.cxx = fs::path(argv0).filename().string().ends_with("++");
  toolchain.driverName = toolchain.cxx ? "synergy-c++" : "synergy-cc";
  toolchain.clangPath = toolchain.cxx ? synergy::toolpaths::kClangxx : synergy::toolpaths::kClang;
  toolchain.wasiSysroot = synergy::toolpaths::kWasiSysroot;
  std::error_code ec;
  fs::path self = fs::canonical("/proc/self/exe", ec);
  if (ec) {
    error = "cannot locate the synergy-cc executable: " + ec.message();
    return false;
  }
  fs::path share = self.parent_path().parent_path() / "share" / "synergy";
  toolchain.guestIncludeDir = (share / "include").string();
  toolchain.controlPointSymbols = (share / "control-points.syms").string();
  toolchain.guestLibraryDir = (share / "lib").string();
  if (!fs::exists(toolchain.controlPointSymbols)) {
    error = "incomplete installation: missing '" + toolchain.controlPointSymbols + "'";
    return false;
  }
  return true;
}

// --version answers on stdout; -v, like clang's, on stderr.
void printVersion(std::ostream& out, const GranuleToolchain& toolchain) {
  out << toolchain.driverName << " (Synergy " << synergy::toolpaths::kVersion
            << ") wasm32-wasi granule compiler, clang " << synergy::toolpaths::kClangVersion
            << '\n'
            << std::flush;
}

void printHelp(const GranuleToolchain& toolchain) {
  std::cout << "OVERVIEW: " << toolchain.driverName
            << " builds C" << (toolchain.cxx ? "++" : "")
            << " programs into wasm32-wasi granules for synergy-run\n\n"
               "USAGE: "
            << toolchain.driverName
            << " [options] file...\n\n"
               "It accepts cc's command line and drives clang-19 --target=wasm32-wasi:\n"
               "  -c, -S, -E, -o, -I, -D, -U, -O0..-O3, -Os, -g, -std=, -W..., -f..., -x,\n"
               "  -M/-MD/-MF/-MT, -l, -L, -Wl,..., @response-file, -print-*, -dump*, -v, -###\n"
               "All other clang-19 options are passed through to clang.\n\n"
               "Granule-specific behaviour:\n"
               "  - Linked modules (not -c, -r or -shared) go through the Synergy pass\n"
               "    pipeline: direct calls for invokes that cannot unwind, control-point\n"
               "    census, atomics lowering, Asyncify.\n"
               "  - The stack comes first in memory (8 MiB, -Wl,-z,stack-size=N to change),\n"
               "    so a stack overflow traps instead of corrupting data.\n"
               "  - setjmp/longjmp work (<setjmp.h>); wasi-libc's signal, process-clock,\n"
               "    mman and getpid emulations are on and linked by default.\n"
               "  - MPI_*, __kmpc_*, omp_* and pthread_* may stay undefined: they are\n"
               "    control points the runtime provides (share/synergy/control-points.syms).\n"
               "    Calling an MPI function the runtime does not serve is a link error\n"
               "    that names the function.\n"
               "  - C++ uses libc++; synergy-c++ enables exceptions (-fno-exceptions to turn\n"
               "    them off; synergy-cc compiles C++ without them). -fopenmp is supported,\n"
               "    -pthread is accepted.\n\n"
               "EXAMPLES:\n"
               "  synergy-cc hello.c -O2 -o hello.wasm && synergy-run hello.wasm\n"
               "  synergy-c++ -c app.cpp -o app.o && synergy-c++ app.o -lm -o app.wasm\n"
               "  cmake -S proj -B b -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/synergy/"
               "synergy-toolchain.cmake\n";
}

bool checkInputsExist(const DriverArguments& arguments, std::string& error) {
  for (const DriverInput& input : arguments.inputs) {
    std::error_code ec;
    if (input.path != "-" && !fs::exists(input.path, ec)) {
      error = "no such file or directory: '" + input.path + "'";
      return false;
    }
  }
  return true;
}

// Holds the objects of one link; removed with everything in it.
class ScratchDirectory {
 public:
  // With `createIt` false (-###) the directory is only named, for printing.
  bool create(bool createIt, std::string& error) {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/synergy-cc-XXXXXX";
    if (!createIt) return true;
    if (!mkdtemp(path_.data())) {
      error = "cannot create a temporary directory from '" + path_ + "'";
      return false;
    }
    created_ = true;
    return true;
  }
  ~ScratchDirectory() {
    std::error_code ec;
    if (created_) fs::remove_all(path_, ec);
  }
  std::string objectFor(size_t inputIndex, const std::string& source) const {
    return (fs::path(path_) / (std::to_string(inputIndex) + "-" +
                               fs::path(source).stem().string() + ".o"))
        .string();
  }

 private:
  std::string path_;
  bool created_ = false;
};

// Runs (or, for -###, prints) one clang call. Returns its exit code.
int runStep(const GranuleToolchain& toolchain, const DriverArguments& arguments,
            const ToolCommand& command) {
  if (arguments.printCommandsOnly || arguments.verbose) printToolCommand(std::cerr, command);
  if (arguments.printCommandsOnly) return 0;
  std::string error;
  int exitCode = runToolCommand(command, error);
  if (!error.empty()) reportError(toolchain, error);
  return exitCode;
}

// The granule build, one stage a line.
int buildGranule(const GranuleToolchain& toolchain, const DriverArguments& arguments) {
  std::string error;
  ScratchDirectory scratch;
  if (!scratch.create(!arguments.printCommandsOnly, error)) return reportError(toolchain, error);
  std::string output = arguments.outputPath.empty() ? "a.out" : arguments.outputPath;

  // 1. Compile each source on its own, with all compile options (-O included).
  std::vector<std::string> objectForInput(arguments.inputs.size());
  for (size_t i = 0; i < arguments.inputs.size(); ++i) {
    if (arguments.inputs[i].kind != InputKind::Source) continue;
    objectForInput[i] = scratch.objectFor(i, arguments.inputs[i].path);
    int exitCode =
        runStep(toolchain, arguments, buildCompileCommand(toolchain, arguments, i, objectForInput[i]));
    if (exitCode != 0) return exitCode;
  }

  // 2. Link objects, archives and libraries in command-line order, without
  //    wasm-opt, so the name section survives for trap messages. A call to
  //    an MPI function the runtime does not serve is reported as such.
  ToolCommand link = buildLinkCommand(toolchain, arguments, objectForInput, output);
  if (arguments.printCommandsOnly || arguments.verbose) printToolCommand(std::cerr, link);
  if (!arguments.printCommandsOnly) {
    std::map<std::string, std::string> sourceOfObject;
    for (size_t i = 0; i < arguments.inputs.size(); ++i)
      if (!objectForInput[i].empty()) sourceOfObject[objectForInput[i]] = arguments.inputs[i].path;
    int exitCode = runToolCommand(
        link,
        [&](const std::string& messages) {
          return explainUnservedCalls(messages, toolchain.driverName, sourceOfObject);
        },
        error);
    if (!error.empty()) reportError(toolchain, error);
    if (exitCode != 0) return exitCode;
  }

  // 3. Only a finished module gets the Synergy passes; -r and -shared outputs
  //    are linked again later, and the passes run on that result.
  if (arguments.relocatableOrShared) return 0;
  if (arguments.printCommandsOnly || arguments.verbose)
    std::cerr << " (in-process) synergy pass pipeline on \"" << output << "\"\n";
  if (arguments.printCommandsOnly) return 0;
  if (!synergy::passes::runDefaultPipeline(output, output, error)) {
    std::error_code ec;
    fs::remove(output, ec);
    // The pipeline's messages usually carry the module's name as their
    // location ("a.wasm: error: ..."); others get the driver's prefix.
    if (error.starts_with(output + ":")) {
      std::cerr << error << '\n';
      return 1;
    }
    return reportError(toolchain, output + ": " + error);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  GranuleToolchain toolchain;
  std::string error;
  if (!locateToolchain(argv[0], toolchain, error)) return reportError(toolchain, error);

  std::vector<std::string> words(argv + 1, argv + argc);
  DriverArguments arguments;
  if (!expandResponseFiles(words, error)) return reportError(toolchain, error);
  // Verilog inputs make an engine, not a granule: a different pipeline with
  // its own options (-top, +plusargs), so it takes the whole command line.
  if (std::any_of(words.begin(), words.end(), verilog::isVerilogSource)) {
    verilog::VerilogCompileOptions options;
    if (!verilog::parseVerilogCommandLine(words, options, error))
      return reportError(toolchain, error);
    return verilog::compileVerilog(options);
  }
  if (!parseDriverArguments(words, arguments, error)) return reportError(toolchain, error);

  if (arguments.showHelp) {
    printHelp(toolchain);
    return 0;
  }
  if (arguments.showVersion) {
    printVersion(std::cout, toolchain);
    DriverArguments versionQuery;
    versionQuery.arguments.push_back({ArgumentPhase::Both, {"--version"}});
    return runStep(toolchain, versionQuery, buildSingleClangCommand(toolchain, versionQuery));
  }
  if (!checkInputsExist(arguments, error))
    return reportError(toolchain, error);

  switch (arguments.action) {
    case DriverAction::Query:
      if (arguments.verbose) printVersion(std::cerr, toolchain);
      return runStep(toolchain, arguments, buildSingleClangCommand(toolchain, arguments));
    case DriverAction::StopBeforeLink:
      if (arguments.inputs.empty()) return reportError(toolchain, "no input files");
      return runStep(toolchain, arguments, buildSingleClangCommand(toolchain, arguments));
    case DriverAction::Link:
      if (arguments.inputs.empty()) return reportError(toolchain, "no input files");
      if (arguments.verbose) printVersion(std::cerr, toolchain);
      return buildGranule(toolchain, arguments);
  }
  return 0;
}

//===- ClangCommands.h - clang-19 command lines for wasm32-wasi granules ---===//
//
// Turns a classified cc command line into the clang-19 invocations that build
// a granule: one call when clang stops before linking, otherwise one compile
// call per source and one link call. Linking is separate so that -O reaches
// only the compile steps: given -O when linking, clang-19 runs wasm-opt, which
// strips the name section (its --no-wasm-opt switch makes it skip the link
// altogether). Every link also gets the same Synergy defaults.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontends/c/DriverArguments.h"

#include <string>
#include <vector>

namespace synergy::frontend_c {

// Where the pieces of the toolchain live for this driver.
struct GranuleToolchain {
  std::string driverName;    // "synergy-cc" or "synergy-c++": clang's diagnostic prefix
  std::string clangPath;     // clang-19 or clang++-19
  bool cxx = false;          // C++ driver: compile as C++ and link libc++
  std::string wasiSysroot;   // holds include/wasm32-wasi and lib/wasm32-wasi
  std::string guestIncludeDir;     // our mpi.h, omp.h, synergy.h
  std::string controlPointSymbols;  // imports the linker may leave undefined
  std::string guestLibraryDir;      // our wasm32 archives (libsynergy-posix*.a)
};

// A program to run: `program` is the executable, `argv[0]` the name it sees.
struct ToolCommand {
  std::string program;
  std::vector<std::string> argv;
};

// The one clang call for -c, -S, -E, queries and the like: the user's
// arguments in order, with the target, sysroot and include directories added.
ToolCommand buildSingleClangCommand(const GranuleToolchain& toolchain,
                                    const DriverArguments& arguments);

// Compiles inputs[inputIndex] (a source) to objectPath.
ToolCommand buildCompileCommand(const GranuleToolchain& toolchain,
                                const DriverArguments& arguments, size_t inputIndex,
                                const std::string& objectPath);

// Links every linker input, with sources replaced by objectForInput[i] (indexed
// like arguments.inputs), into outputPath.
ToolCommand buildLinkCommand(const GranuleToolchain& toolchain, const DriverArguments& arguments,
                             const std::vector<std::string>& objectForInput,
                             const std::string& outputPath);

}  // namespace synergy::frontend_c

//===- DriverArguments.h - a cc command line, classified --------------------===//
//
// synergy-cc accepts cc's command line. To link without clang's wasm-opt step
// and to run the Synergy passes on the result, it compiles each source itself
// and links separately, so it must know which argument belongs to which phase.
// This file classifies every argument once, keeping command-line order (the
// order of objects, archives and -l matters to the linker).
//
// Arguments the driver does not know go to both phases; clang then accepts or
// rejects them, so "unknown argument" errors stay clang's own.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace synergy::frontend_c {

// Which clang invocations an argument is passed to.
enum class ArgumentPhase {
  Input,     // a file to compile or link
  Compile,   // compile steps only (-I, -D, -MF, -fopenmp, ...)
  Link,      // the link step only (-l, -L, -Wl, -shared, ...)
  Both,      // every step (-O2, -g, -W..., -v, unknown flags)
  Output,    // -o: the driver decides each step's output itself
  Language,  // -x: the driver re-states the language per source
  Dropped,   // accepted and ignored (-pthread, --target=wasm32-wasi)
};

enum class InputKind {
  Source,       // compiled by clang (C, C++, assembly, preprocessed)
  LinkerInput,  // objects, archives and anything else handed to the linker
  Verilog,      // .v / .sv, for the Verilog frontend
};

struct DriverInput {
  std::string path;      // "-" is standard input
  std::string language;  // the -x in force for this input, empty if none
  InputKind kind;
};

struct DriverArgument {
  ArgumentPhase phase;
  // The option word and its separate values, or one input path.
  std::vector<std::string> words;
  size_t inputIndex = 0;  // into DriverArguments::inputs, for phase Input
};

enum class DriverAction {
  Link,            // compile the sources, link, run the Synergy passes
  StopBeforeLink,  // -c, -S, -E, -M, -MM, -fsyntax-only: one clang call
  Query,           // -print-*, -dump*, -v alone: clang answers for wasm32-wasi
};

struct DriverArguments {
  std::vector<DriverArgument> arguments;  // command-line order
  std::vector<DriverInput> inputs;
  DriverAction action = DriverAction::Link;
  std::string outputPath;  // the -o value, empty when absent
  bool verbose = false;            // -v
  bool printCommandsOnly = false;  // -###
  bool showVersion = false;        // --version
  bool showHelp = false;           // --help
  bool relocatableOrShared = false;  // -r or -shared: no finished module
  bool noStandardIncludes = false;     // -nostdinc
  bool noStandardCxxIncludes = false;  // -nostdinc++
  // -fopenmp or -pthread: the program runs as several thread granules over
  // one memory, so it is built with real atomics and thread-local storage.
  bool threads = false;
};

// Classifies `arguments` (argv without the program name, response files
// already expanded). Returns false with a one-line `error` for a missing
// option value or a target other than wasm32-wasi.
bool parseDriverArguments(const std::vector<std::string>& arguments, DriverArguments& parsed,
                          std::string& error);

}  // namespace synergy::frontend_c

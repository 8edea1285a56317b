//===- ClangCommands.cpp - clang-19 command lines for wasm32-wasi granules -===//
//
// Every clang call starts with the same target prefix, placed before the
// user's arguments so that theirs win where clang lets a later flag override.
//
//===----------------------------------------------------------------------===//
#include "frontends/c/ClangCommands.h"

namespace synergy::frontend_c {

// wasm-ld's default 64 KiB stack sits above the data, where an overflow
// silently overwrites globals. Placing the stack first makes an overflow run
// below address 0 and trap; 1 MiB fits ordinary recursive C code. A later
// -Wl,-z,stack-size=N from the user replaces the size.
static constexpr const char* kDefaultStackSize = "-Wl,-z,stack-size=1048576";

static void append(std::vector<std::string>& to, const std::vector<std::string>& words) {
  to.insert(to.end(), words.begin(), words.end());
}

static ToolCommand startClangCommand(const GranuleToolchain& toolchain,
                                     const DriverArguments& arguments) {
  // clang prefixes its own diagnostics with the stem of argv[0], so running it
  // under the driver's name makes every message read "synergy-cc: error: ...".
  ToolCommand command{toolchain.clangPath, {toolchain.driverName}};
  std::vector<std::string>& argv = command.argv;
  if (toolchain.cxx) argv.push_back("--driver-mode=g++");
  argv.push_back("--target=wasm32-wasi");
  argv.push_back("--sysroot=" + toolchain.wasiSysroot);
  // With the Debian layout (sysroot /usr) clang would also search the host's
  // /usr/include, whose glibc headers must never reach a granule. Drop the
  // default system directories and name the wasm32 ones, in clang's order.
  argv.push_back("-nostdlibinc");
  argv.push_back("-isystem");
  argv.push_back(toolchain.guestIncludeDir);
  std::string wasiInclude = toolchain.wasiSysroot + "/include/wasm32-wasi";
  if (!arguments.noStandardIncludes && !arguments.noStandardCxxIncludes) {
    argv.push_back("-cxx-isystem");
    argv.push_back(wasiInclude + "/c++/v1");
  }
  if (!arguments.noStandardIncludes) {
    argv.push_back("-idirafter");
    argv.push_back(wasiInclude);
  }
  // libc++ and libc++abi for wasm32 are built without exception support.
  argv.push_back("-fno-exceptions");
  // Loops unrolled in wasm reach the AOT compiler as 32-bit address sums it
  // cannot prove adjacent, which blocks its vectorizer (dgemm: 1.80x native
  // unrolled, 1.44x not). The AOT clang -O2 unrolls natively anyway. Placed
  // before the user's flags, so -funroll-loops still wins.
  argv.push_back("-fno-unroll-loops");
  // Thread granules share one memory: C11 and OpenMP atomics must stay wasm
  // atomics (the LowerAtomics pass turns them into runtime calls), and
  // _Thread_local/threadprivate must address memory through __tls_base so
  // that each granule can have its own block.
  if (arguments.threads) append(argv, {"-matomics", "-mbulk-memory"});
  return command;
}

ToolCommand buildSingleClangCommand(const GranuleToolchain& toolchain,
                                    const DriverArguments& arguments) {
  ToolCommand command = startClangCommand(toolchain, arguments);
  for (const DriverArgument& argument : arguments.arguments)
    if (argument.phase != ArgumentPhase::Dropped) append(command.argv, argument.words);
  return command;
}

ToolCommand buildCompileCommand(const GranuleToolchain& toolchain,
                                const DriverArguments& arguments, size_t inputIndex,
                                const std::string& objectPath) {
  ToolCommand command = startClangCommand(toolchain, arguments);
  for (const DriverArgument& argument : arguments.arguments)
    if (argument.phase == ArgumentPhase::Compile || argument.phase == ArgumentPhase::Both)
      append(command.argv, argument.words);
  const DriverInput& input = arguments.inputs[inputIndex];
  if (!input.language.empty()) append(command.argv, {"-x", input.language});
  append(command.argv, {"-c", input.path, "-o", objectPath});
  return command;
}

ToolCommand buildLinkCommand(const GranuleToolchain& toolchain, const DriverArguments& arguments,
                             const std::vector<std::string>& objectForInput,
                             const std::string& outputPath) {
  ToolCommand command = startClangCommand(toolchain, arguments);
  std::vector<std::string>& argv = command.argv;
  argv.push_back("-Wl,--stack-first");
  argv.push_back(kDefaultStackSize);
  // Control points the compiler emits or libc declares (__kmpc_*, pthread_*,
  // MPI_*) become imports instead of link errors; any other undefined symbol
  // is still an error, as with cc. Functions declared with an import_module
  // attribute (the "synergy" module) are imports without this list.
  argv.push_back("-Wl,--allow-undefined-file=" + toolchain.controlPointSymbols);
  if (arguments.threads) {
    // Only a shared-memory link keeps TLS relative to a mutable __tls_base
    // (otherwise wasm-ld makes it absolute); the memory is made non-shared
    // again by LowerAtomics. wasi-libc is built without atomics, hence no
    // feature check. The runtime allocates thread stacks and TLS blocks with
    // the guest's own allocator and initialises TLS with __wasm_init_tls,
    // sizing the block by __tls_size/__tls_align; exporting them keeps them
    // alive (the ExportThreadSupport pass then replaces wasm-ld's
    // constructor-running export wrappers).
    append(argv, {"-Wl,--shared-memory", "-Wl,--no-check-features",
                  "-Wl,--max-memory=4294967296", "-Wl,--export=malloc", "-Wl,--export=free",
                  "-Wl,--export=__wasm_init_tls", "-Wl,--export=__tls_size",
                  "-Wl,--export=__tls_align"});
  }
  for (const DriverArgument& argument : arguments.arguments) {
    switch (argument.phase) {
      case ArgumentPhase::Input: {
        const DriverInput& input = arguments.inputs[argument.inputIndex];
        argv.push_back(input.kind == InputKind::Source ? objectForInput[argument.inputIndex]
                                                       : input.path);
        break;
      }
      case ArgumentPhase::Link:
      case ArgumentPhase::Both:
        append(argv, argument.words);
        break;
      case ArgumentPhase::Compile:
      case ArgumentPhase::Output:
      case ArgumentPhase::Language:
      case ArgumentPhase::Dropped:
        break;
    }
  }
  // Options shared with compilation (-g, -W..., -f...) mean nothing to the
  // linker; do not warn about them, as a single clang call would not.
  append(argv, {"-Qunused-arguments", "-o", outputPath});
  return command;
}

}  // namespace synergy::frontend_c

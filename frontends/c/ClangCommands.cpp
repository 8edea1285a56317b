//===- ClangCommands.cpp - clang-19 command lines for wasm32-wasi granules -===//
//
// Every clang call starts with the same target prefix, placed before the
// user's arguments so that theirs win where clang lets a later flag override.
//
//===----------------------------------------------------------------------===//
#include "frontends/c/ClangCommands.h"

#include <array>

namespace synergy::frontend_c {

// wasm-ld's default 64 KiB stack sits above the data, where an overflow
// silently overwrites globals. Placing the stack first makes an overflow run
// below address 0 and trap; 8 MiB is Linux's default, which programs written
// for cc assume. A later -Wl,-z,stack-size=N from the user replaces the size.
static constexpr const char* kDefaultStackSize = "-Wl,-z,stack-size=8388608";

// wasi-libc hides signal(), clock()/times()/getrusage(), mmap() and getpid()
// behind these macros, each with its library; cc offers them unasked, so a
// granule gets them too (and, through their headers, compiles as with cc).
static constexpr std::array<const char*, 4> kWasiEmulationDefines = {
    "-D_WASI_EMULATED_SIGNAL", "-D_WASI_EMULATED_PROCESS_CLOCKS", "-D_WASI_EMULATED_MMAN",
    "-D_WASI_EMULATED_GETPID"};
static constexpr std::array<const char*, 4> kWasiEmulationLibraries = {
    "-lwasi-emulated-signal", "-lwasi-emulated-process-clocks", "-lwasi-emulated-mman",
    "-lwasi-emulated-getpid"};

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
  argv.insert(argv.end(), kWasiEmulationDefines.begin(), kWasiEmulationDefines.end());
  // C++ exceptions: wasm2c has no exception handling, so they are lowered
  // as setjmp/longjmp are below (calls that may throw into a landing pad
  // become env.invoke_* imports), and synergy-c++ links our EH runtime
  // (guestlib/CxxExceptions.cpp). clang enables exceptions for C++ by
  // default, as natively, and a user's -fno-exceptions still wins.
  // synergy-cc keeps C++ sources without exceptions, as before: its links
  // have no C++ runtime. The lowering is on for both, so that a C function
  // that calls setjmp passes on an exception thrown through it by C++ code
  // it is linked with, instead of taking it for a normal return.
  append(argv, {"-mllvm", "-enable-emscripten-cxx-exceptions"});
  if (!toolchain.cxx) argv.push_back("-fno-exceptions");
  // setjmp/longjmp: wasm2c 1.0.32 has no exception handling, so calls made by
  // a function that calls setjmp go through env.invoke_* imports that the
  // runtime runs under a host jump target (include/setjmp.h). Functions that
  // do not call setjmp are compiled as before.
  append(argv, {"-mllvm", "-enable-emscripten-sjlj"});
  // Loops unrolled in wasm reach the AOT compiler as 32-bit address sums it
  // cannot prove adjacent, which blocks its vectorizer (dgemm: 1.80x native
  // unrolled, 1.44x not). The AOT clang -O2 unrolls natively anyway. Placed
  // before the user's flags, so -funroll-loops still wins.
  argv.push_back("-fno-unroll-loops");
  // Without saturating conversions, clang guards every float-to-int
  // conversion with its own range check in wasm, and wasm2c then wraps the
  // trapping truncation in a second check and a trap. C and C++ leave an
  // out-of-range conversion undefined, so the saturating instruction
  // (i32/i64.trunc_sat_f*) is a valid translation and reaches the AOT
  // compiler as one conversion with clamps it can turn into selects.
  argv.push_back("-mnontrapping-fptoint");
  // Without bulk memory, every memcpy, memmove and memset clang does not
  // expand inline (a copy loop it recognised, a struct of run-time size) is
  // a call to wasi-libc's byte-and-word loop in wasm; with it, clang emits
  // memory.copy and memory.fill, which wasm2c turns into one bounds check
  // and the host's vectorised memmove/memset (durbin's row copy: 1.57x
  // native before, ~1.0x after). Small constant sizes stay inline loads
  // and stores either way.
  argv.push_back("-mbulk-memory");
  // Thread granules share one memory: C11 and OpenMP atomics must stay wasm
  // atomics (the LowerAtomics pass turns them into runtime calls), and
  // _Thread_local/threadprivate must address memory through __tls_base so
  // that each granule can have its own block.
  if (arguments.threads) argv.push_back("-matomics");
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
  // After the user's objects and libraries, so that their references pull
  // the members in; libc comes after these, as clang adds it last. A -r or
  // -shared output gets them at its final link.
  if (!arguments.relocatableOrShared) {
    // guestlib/FileLocks.c and ProcessorCount.c: record locks and processor
    // counts, which wasi-libc's fcntl and sysconf lack; WorkingDirectory.c:
    // the host's current directory, when granted, as the guest's, and a
    // chdir that resolves "..".
    append(argv, {"-Wl,--wrap=fcntl", "-Wl,--wrap=sysconf", "-Wl,--wrap=chdir",
                  "-Wl,--undefined=__synergy_enter_working_directory"});
    // errno's address, for the thread-local-errno pass, which gives each
    // thread granule its own errno and drops the export again.
    if (arguments.threads) append(argv, {"-Wl,--undefined=errno", "-Wl,--export=errno"});
    const std::string variant = arguments.threads ? "-threads.a" : ".a";
    // Before libc++/libc++abi, which clang adds last: the EH runtime
    // replaces their members that abort instead of throwing.
    if (toolchain.cxx) argv.push_back(toolchain.guestLibraryDir + "/libsynergy-cxxabi" + variant);
    argv.push_back(toolchain.guestLibraryDir + "/libsynergy-posix" + variant);
    argv.insert(argv.end(), kWasiEmulationLibraries.begin(), kWasiEmulationLibraries.end());
  }
  // Options shared with compilation (-g, -W..., -f...) mean nothing to the
  // linker; do not warn about them, as a single clang call would not.
  append(argv, {"-Qunused-arguments", "-o", outputPath});
  return command;
}

}  // namespace synergy::frontend_c

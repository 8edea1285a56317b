//===- EngineBuilder.h - emitted Verilog -> cached engine shared object ----===//
//
// Runs Verilator on the `synergy_engine` module of an .eng file, compiles the
// model together with wrapper/EngineWrapper.cpp into a shared object, and
// keeps it in the "engines" area of the object cache (ObjectCache.h) keyed by
// the SHA-256 of the Verilog, the wrapper and the toolchain identity; the
// cache verifies each object's digest before handing it out, and publishes by
// rename, so concurrent builds of the same design never expose a partial
// object. Verilator's own runtime (verilated.cpp) is compiled once per
// toolchain and cached the same way, which is most of the saving.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace synergy::engine {

// Path of the cached shared object for `verilog`, building it if needed.
// Returns nullopt and a one-line `error` when a tool fails. A build first
// takes its design's lock and one of the cache's build slots; with
// `waitWhileAlive` set (a detached build, DetachedEngineBuild.h: the run
// that started it, its parent) it waits for a lock that is taken only while
// that process lives, and gives up (nullopt) when the process has ended, so
// that runs which end leave no builds queued behind the slots.
std::optional<std::string> buildEngineSharedObject(const std::string& verilog, std::string& error,
                                                   pid_t waitWhileAlive = 0);

// The cached shared object for `verilog` if there is one (checked like any
// cache hit), without building anything.
std::optional<std::string> findCachedEngineSharedObject(const std::string& verilog);

// A Verilated shared object of another shape than a single engine: the
// hypervisor's combined program, whose top module and wrapper are its own.
// `wrapperSources` (file name, text) are written beside the model; the one
// named `wrapperUnit` is compiled with it. The cache key covers every
// source, the Verilog and the toolchain, as for an engine.
struct VerilatedObjectRecipe {
  std::string verilog;
  std::string topModule;
  std::vector<std::pair<std::string, std::string>> wrapperSources;
  std::string wrapperUnit;
};
std::optional<std::string> buildVerilatedSharedObject(const VerilatedObjectRecipe& recipe, std::string& error,
                                                      pid_t waitWhileAlive = 0);
std::optional<std::string> findCachedVerilatedSharedObject(const VerilatedObjectRecipe& recipe);

}  // namespace synergy::engine

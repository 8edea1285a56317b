//===- EngineBuilder.cpp - emitted Verilog -> cached engine shared object --===//
//
// Build steps for one design (work directory under the cache, renamed into
// place at the end):
//   1. verilator --cc -O3 on synergy_engine.v (C++ only, no make);
//   2. one clang++ invocation over a unity file that includes every generated
//      .cpp and the wrapper, linked with the cached Verilator runtime objects.
// A unity build parses verilated.h once instead of once per generated file;
// C++ is built at -O2 so tests stay fast while the model still runs well.
// Builds take locks in the cache directory first (see BuildLock below): runs
// of one design build it once, and few builds of any design run at once.
//
//===----------------------------------------------------------------------===//
#include "engine/EngineBuilder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "engine/EngineWrapperSource.h"
#include "objectcache/ObjectCache.h"
#include "synergy/ToolPaths.h"
#include "util/FileIO.h"
#include "util/Sha256.h"
#include "util/Subprocess.h"

namespace synergy::engine {

namespace fs = std::filesystem;

// Bump when the build recipe changes shape.
static constexpr const char* kEngineBuildFormat = "engine-build-3";
static constexpr const char* kOptimization = "-O2";
// C++ lets the compiler assume that a loop without I/O or atomics ends, and
// clang then deletes such a loop that never does, with whatever follows it
// as unreachable: a forged `for` that never ends would silently skip the
// rest of its block, or run off the end of a function, instead of looping
// where the EvaluationWatchdog can stop it. The Verilog's loops must keep
// their meaning in the model.
static constexpr const char* kLoopSemantics = "-fno-finite-loops";
// Only the wrapper's entry points leave the object, so the model's calls to
// its own functions and to Verilator's runtime bind directly instead of
// through the PLT: a tick is a few such calls.
static constexpr const char* kVisibility = "-fvisibility=hidden";

static std::string firstErrorLine(const std::string& output) {
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    std::string line = output.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.find("rror") != std::string::npos)
      return line;
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return output.substr(0, output.find('\n'));
}

static std::string toolchainIdentity(std::string& verilatorRoot, std::string& error) {
  verilatorRoot = toolpaths::kVerilatorRoot;
  if (verilatorRoot.empty()) {
    error = "verilator was not found when Synergy was configured; install it and reconfigure";
    return {};
  }
  return std::string(kEngineBuildFormat) + "\n" + toolpaths::kVerilatorVersion + "\n" + toolpaths::kClangxx +
         "\n" + toolpaths::kClangVersion + "\n" + kOptimization + "\n" + kLoopSemantics + "\n";
}

static std::vector<std::string> includeFlags(const std::string& verilatorRoot) {
  return {"-I" + verilatorRoot + "/include", "-I" + verilatorRoot + "/include/vltstd"};
}

// One object of Verilator's runtime library, compiled once per toolchain.
static std::optional<std::string> cachedRuntimeObject(const objectcache::ObjectCache& cache,
                                                      const std::string& identity,
                                                      const std::string& verilatorRoot,
                                                      const std::string& sourceName, std::string& error) {
  util::Sha256 hash;
  hash.update(identity);
  hash.update(sourceName);
  std::string key = sourceName + "-" + hash.hexDigest().substr(0, 24) + ".o";
  if (auto cached = cache.find(key))
    return cached;
  auto work = cache.makeBuildDirectory(error);
  if (!work)
    return std::nullopt;
  std::string tempObject = *work + "/" + sourceName + ".o";
  std::vector<std::string> argv = {toolpaths::kClangxx, "-std=c++20", kOptimization, "-fPIC", kVisibility, "-w", "-c",
                                   verilatorRoot + "/include/" + sourceName + ".cpp", "-o", tempObject};
  auto includes = includeFlags(verilatorRoot);
  argv.insert(argv.begin() + 1, includes.begin(), includes.end());
  auto compile = util::runProcess(argv);
  std::optional<std::string> objectPath;
  if (compile.exitCode != 0)
    error = "compiling Verilator's " + sourceName + ".cpp failed: " + firstErrorLine(compile.output);
  else
    objectPath = cache.publish(key, tempObject, error);
  std::error_code ignored;
  fs::remove_all(*work, ignored);
  return objectPath;
}

static std::string unitySource(const std::string& modelDir, const std::string& wrapperUnit) {
  std::vector<std::string> sources;
  for (const auto& entry : fs::directory_iterator(modelDir))
    if (entry.path().extension() == ".cpp")
      sources.push_back(entry.path().filename().string());
  std::sort(sources.begin(), sources.end());
  std::string unity = "// Generated: every Verilator output file plus the engine wrapper.\n";
  for (const auto& source : sources)
    unity += "#include \"" + source + "\"\n";
  unity += "#include \"" + wrapperUnit + "\"\n";
  return unity;
}

// The recipe of a single engine: the emitted synergy_engine module and
// wrapper/EngineWrapper.cpp.
static VerilatedObjectRecipe engineRecipe(const std::string& verilog) {
  return {verilog,
          "synergy_engine",
          {{"EngineAbi.h", kEngineAbiHeaderSource}, {"EngineWrapper.cpp", kEngineWrapperSource}},
          "EngineWrapper.cpp"};
}

// The cache key of the object built from `recipe` with this toolchain: the
// wrapper sources in order, then the Verilog (for an engine, its ABI header,
// its wrapper and its Verilog).
static std::string objectKey(const std::string& identity, const VerilatedObjectRecipe& recipe) {
  util::Sha256 hash;
  hash.update(identity);
  for (const auto& [name, text] : recipe.wrapperSources)
    hash.update(text);
  hash.update(recipe.verilog);
  return hash.hexDigest() + ".so";
}

// Where the engine object for one design lives: the toolchain it is built
// with, the "engines" cache area and its key there.
struct EngineCacheSlot {
  std::string verilatorRoot;
  std::string identity;
  objectcache::ObjectCache cache;
  std::string key;
};

// The slot of `recipe`'s object; nullopt and `error` when there is
// no Verilator or the cache cannot be opened. Finding and building share it,
// so both look under the same key.
static std::optional<EngineCacheSlot> engineCacheSlot(const VerilatedObjectRecipe& recipe, std::string& error) {
  std::string verilatorRoot;
  std::string identity = toolchainIdentity(verilatorRoot, error);
  if (identity.empty())
    return std::nullopt;
  auto cache = objectcache::ObjectCache::open("engines", error);
  if (!cache)
    return std::nullopt;
  std::string key = objectKey(identity, recipe);
  return EngineCacheSlot{std::move(verilatorRoot), std::move(identity), std::move(*cache), std::move(key)};
}

std::optional<std::string> findCachedVerilatedSharedObject(const VerilatedObjectRecipe& recipe) {
  std::string error;
  auto slot = engineCacheSlot(recipe, error);
  if (!slot)
    return std::nullopt;
  return slot->cache.find(slot->key);
}

std::optional<std::string> findCachedEngineSharedObject(const std::string& verilog) {
  return findCachedVerilatedSharedObject(engineRecipe(verilog));
}

std::optional<std::string> buildEngineSharedObject(const std::string& verilog, std::string& error,
                                                   pid_t waitWhileAlive) {
  return buildVerilatedSharedObject(engineRecipe(verilog), error, waitWhileAlive);
}

// Each build runs Verilator and a C++ compiler, a core and hundreds of MB
// for seconds: every cold `--engine auto` run starts one in the background,
// so without a bound, N runs of a design would build it N times side by
// side, and runs of many designs would swamp the machine. A detached build
// waits for a slot only while its run goes on, so runs that end leave at
// most this many builds behind, never a queue.
constexpr unsigned kConcurrentBuilds = 2;

// An exclusive flock on a file of the cache directory (which only its user
// may write), held until destruction. flock locks go with their process, so
// a killed build holds none; the descriptor is close-on-exec, so the tools a
// build runs never hold it. The lock files stay, empty (removing one while
// a process waits on it would let two hold "the" lock).
//
// With `waitWhileAlive` set, a lock that is taken is waited for only while
// that process (the waiter's parent) lives: the kernel kills the waiter when
// its parent ends (PR_SET_PDEATHSIG, armed for the wait alone), which is
// safe there, since a waiter has written nothing yet and holds only locks.
class BuildLock {
 public:
  // Waits for the lock on `path`. Without a lock file (a cache the user
  // cannot write to fails later, with its own error) the build goes on
  // unlocked: the lock only saves work, publishing is safe without it.
  BuildLock(const std::string& path, pid_t waitWhileAlive) : fd_(openLockFile(path)) {
    if (fd_ >= 0)
      gaveUp_ = !lockExclusive(fd_, waitWhileAlive);
  }

  // Takes the first free one of `count` slot files `prefix`N.lock, or waits
  // for one of them.
  static BuildLock anySlot(const std::string& prefix, unsigned count, pid_t waitWhileAlive) {
    for (unsigned k = 0; k < count; ++k) {
      BuildLock lock(openLockFile(prefix + std::to_string(k) + ".lock"));
      if (lock.fd_ >= 0 && flock(lock.fd_, LOCK_EX | LOCK_NB) == 0)
        return lock;
    }
    return BuildLock(prefix + std::to_string(static_cast<unsigned>(getpid()) % count) + ".lock", waitWhileAlive);
  }

  BuildLock(BuildLock&& other) noexcept : fd_(other.fd_), gaveUp_(other.gaveUp_) { other.fd_ = -1; }
  BuildLock& operator=(BuildLock&&) = delete;
  ~BuildLock() {
    if (fd_ >= 0)
      close(fd_);
  }

  // The process it was waited for had ended already: no lock is held.
  bool gaveUp() const { return gaveUp_; }

 private:
  explicit BuildLock(int fd) : fd_(fd) {}
  static int openLockFile(const std::string& path) {
    return open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  }
  // False, with no lock held, when another process holds it and
  // `waitWhileAlive` has ended already; a wait that process does not
  // outlive ends with the waiter.
  static bool lockExclusive(int fd, pid_t waitWhileAlive) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
      return true;
    if (waitWhileAlive != 0) {
      // Armed before the check, so a parent that ends after it still ends
      // the wait.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != waitWhileAlive) {
        prctl(PR_SET_PDEATHSIG, 0);
        return false;
      }
    }
    while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    if (waitWhileAlive != 0)
      prctl(PR_SET_PDEATHSIG, 0);
    return true;
  }

  int fd_;
  bool gaveUp_ = false;
};

std::optional<std::string> buildVerilatedSharedObject(const VerilatedObjectRecipe& recipe, std::string& error,
                                                      pid_t waitWhileAlive) {
  auto slot = engineCacheSlot(recipe, error);
  if (!slot)
    return std::nullopt;
  if (auto cached = slot->cache.find(slot->key))
    return cached;
  // The design's own lock first, then a build slot: a slot holder never
  // waits for a design lock, so the two cannot wait on each other. A run
  // that waited for another build of the same design takes its object.
  BuildLock designLock(slot->cache.directory() + "/build-" + slot->key + ".lock", waitWhileAlive);
  if (designLock.gaveUp()) {
    error = "the run ended while its engine build waited for another build of the design";
    return std::nullopt;
  }
  if (auto cached = slot->cache.find(slot->key))
    return cached;
  BuildLock buildSlot =
      BuildLock::anySlot(slot->cache.directory() + "/build-slot-", kConcurrentBuilds, waitWhileAlive);
  if (buildSlot.gaveUp()) {
    error = "the run ended while its engine build waited for a build slot";
    return std::nullopt;
  }
  std::vector<std::string> runtimeObjects;
  for (const char* source : {"verilated", "verilated_threads"}) {
    auto object = cachedRuntimeObject(slot->cache, slot->identity, slot->verilatorRoot, source, error);
    if (!object)
      return std::nullopt;
    runtimeObjects.push_back(*object);
  }

  auto work = slot->cache.makeBuildDirectory(error);
  if (!work)
    return std::nullopt;
  std::string modelDir = *work + "/model";
  std::string verilogPath = *work + "/" + recipe.topModule + ".v";
  // The wrapper lives beside, not inside, Verilator's output directory, whose
  // .cpp files the unity source includes wholesale.
  std::string wrapperDir = *work + "/wrapper";
  bool wrote = util::makeDirectories(modelDir) && util::makeDirectories(wrapperDir) &&
               util::writeFileAtomically(verilogPath, recipe.verilog);
  for (const auto& [name, text] : recipe.wrapperSources)
    wrote = wrote && util::writeFileAtomically(wrapperDir + "/" + name, text);
  std::optional<std::string> result;
  if (!wrote) {
    error = "cannot write engine sources under " + *work;
  } else {
    auto verilate = util::runProcess({toolpaths::kVerilator, "--cc", "-O3", "--no-timing", "-Wno-fatal",
                                      "-Wno-lint", "-Wno-style", "--top-module", recipe.topModule, "--Mdir",
                                      modelDir, verilogPath});
    if (verilate.exitCode != 0) {
      error = "verilator failed on the emitted engine: " + firstErrorLine(verilate.output);
    } else if (!util::writeFileAtomically(modelDir + "/Unity.cpp", unitySource(modelDir, recipe.wrapperUnit))) {
      error = "cannot write engine sources under " + *work;
    } else {
      std::string tempObject = *work + "/engine.so";
      std::vector<std::string> argv = {toolpaths::kClangxx, "-std=c++20", kOptimization, kLoopSemantics, "-fPIC",
                                       kVisibility, "-shared", "-w", "-I" + modelDir, "-I" + wrapperDir};
      auto includes = includeFlags(slot->verilatorRoot);
      argv.insert(argv.end(), includes.begin(), includes.end());
      argv.push_back(modelDir + "/Unity.cpp");
      argv.insert(argv.end(), runtimeObjects.begin(), runtimeObjects.end());
      argv.insert(argv.end(), {"-o", tempObject, "-pthread", "-latomic", "-Wl,-z,defs"});
      auto compile = util::runProcess(argv);
      if (compile.exitCode != 0)
        error = "compiling the engine model failed: " + firstErrorLine(compile.output);
      else
        result = slot->cache.publish(slot->key, tempObject, error);
    }
  }
  std::error_code ignored;
  fs::remove_all(*work, ignored);
  return result;
}

}  // namespace synergy::engine

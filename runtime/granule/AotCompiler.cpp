//===- AotCompiler.cpp - wasm module -> cached native shared object --------===//
#include "granule/AotCompiler.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdio>
#include <filesystem>

#include "granule/AddressInductionVersioning.h"
#include "granule/GlueWriter.h"
#include "granule/ImportedFunctionReferences.h"
#include "granule/MemoryBaseHoisting.h"
#include "granule/NameSectionRewriter.h"
#include "granule/SaturatingTruncations.h"
#include "granule/WasmModuleCheck.h"
#include "objectcache/ObjectCache.h"
#include "synergy/ToolPaths.h"
#include "util/FileIO.h"
#include "util/PrintableText.h"
#include "util/Sha256.h"
#include "util/Subprocess.h"

namespace synergy::granule {
namespace {

constexpr const char* kModuleName = "guest";
// Bump when the generated glue or the post-pass changes shape.
constexpr const char* kAotFormat = "aot-format-11";

// The GNU build id of the executable we run in: it changes whenever the set of
// host functions (and so the glue's resolved imports) can change.
std::string runtimeBuildId() {
  std::string id;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        auto& result = *static_cast<std::string*>(out);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
          auto* end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
            const uint8_t* name = p + sizeof(ElfW(Nhdr));
            const uint8_t* desc = name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID) {
              result += util::hexDigits({desc, note->n_descsz});
              return 1;
            }
            p = desc + ((note->n_descsz + 3) & ~3u);
          }
        }
        return 1;  // only the main executable (the first object) matters
      },
      &id);
  if (id.empty()) {
    // No build id: fall back to the executable's identity on disk.
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    auto time = std::filesystem::last_write_time(exe, ec);
    id = exe.string() + ":" + std::to_string(time.time_since_epoch().count());
  }
  return id;
}

bool hostProvides(const std::string& symbol) {
  return dlsym(RTLD_DEFAULT, symbol.c_str()) != nullptr;
}

std::string firstLine(const std::string& text) {
  size_t end = text.find('\n');
  return text.substr(0, end);
}

// What a module's cache key hashes besides the module: the AOT format, the
// tool versions and the running runtime's build.
std::string keyScope() {
  std::string scope;
  for (const char* part : {kAotFormat, toolpaths::kVersion, toolpaths::kClangVersion,
                           toolpaths::kWasm2cVersion}) {
    scope += part;
    scope += '\n';
  }
  return scope + runtimeBuildId();
}

// The object for `key`: from the cache, or built from the request's module
// and published.
std::optional<std::string> findOrBuild(const AotRequest& request, const std::string& key,
                                       std::string& error) {
  // A cached object was built from these very bytes (the key hashes them) by
  // this runtime, after they passed checkWasmModule; a lookup creates nothing.
  if (auto existing = objectcache::ObjectCache::openExisting("aot"))
    if (auto cached = existing->find(key)) return cached;
  if (auto problem = checkWasmModule(request.wasmBytes)) {
    error = *problem;
    return std::nullopt;
  }
  auto cache = objectcache::ObjectCache::open("aot", error);
  if (!cache) return std::nullopt;
  // Another run may have published the object since the lookup above.
  if (auto cached = cache->find(key)) return cached;

  auto buildDirectory = cache->makeBuildDirectory(error);
  if (!buildDirectory) return std::nullopt;
  const std::string& work = *buildDirectory;
  struct RemoveOnExit {
    std::string path;
    ~RemoveOnExit() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } cleanup{work};

  if (request.showProgress)
    std::fprintf(stderr, "synergy: compiling %s ahead of time (cached for later runs)\n",
                 request.displayName.c_str());

  const std::string wasmPath = work + "/" + kModuleName + ".wasm";
  const std::string cPath = work + "/" + kModuleName + ".c";
  const std::string hPath = work + "/" + kModuleName + ".h";
  const std::string gluePath = work + "/glue.c";
  const std::string soPath = work + "/module.so";
  // wasm2c sees only names we mangled ourselves (see NameSectionRewriter.h).
  if (!util::writeFileAtomically(wasmPath, rewriteNamesForWasm2c(request.wasmBytes))) {
    error = "cannot write " + wasmPath;
    return std::nullopt;
  }
  auto wasm2c = util::runProcess({toolpaths::kWasm2c, "-n", kModuleName, wasmPath, "-o", cPath});
  if (wasm2c.exitCode != 0) {
    std::string message = firstLine(wasm2c.output);
    // wasm2c prefixes errors with the temporary path; report the user's name.
    if (size_t at = message.find(wasmPath); at != std::string::npos)
      message.replace(at, wasmPath.size(), request.displayName);
    error = "invalid wasm module: " + message;
    return std::nullopt;
  }

  auto header = util::readFile(hPath);
  auto source = util::readFile(cPath);
  if (!header || !source) {
    error = "wasm2c produced no output";
    return std::nullopt;
  }
  Glue glue;
  if (!writeGlue(*header, kModuleName, hostProvides, glue, error)) return std::nullopt;
  if (!hoistMemoryBase(*source, kModuleName, glue.memoryField)) {
    error = "unexpected wasm2c output: memory-base hoisting found no load/store helpers";
    return std::nullopt;
  }
  // After the hoisting: it reads the `_at_base` loads and stores.
  versionAddressInductionLoops(*source);
  if (!defineBranchFreeSaturatingTruncations(*source)) {
    error = "unexpected wasm2c output: no saturating truncation definitions";
    return std::nullopt;
  }
  if (!resolveImportedFunctionReferences(*source)) {
    error = "unexpected wasm2c output: funcref_table_init has an unknown shape";
    return std::nullopt;
  }
  if (!util::writeFileAtomically(cPath, *source) ||
      !util::writeFileAtomically(gluePath, glue.source)) {
    error = "cannot write generated C in " + work;
    return std::nullopt;
  }
  // Line tables cost no run time and let trap reports name the wasm function
  // even where clang inlined it into its caller. They are DWARF 4, not clang
  // 19's default 5: Valgrind 3.19 (Debian 12's) gives up on the whole process
  // when it meets DWARF 5 forms in a loaded object, so no granule could run
  // under callgrind or memcheck, the one way to count a granule's
  // instructions in a VM without performance counters
  // (test/lit/run/aot-objects-valgrind.c). Mapping the build directory
  // away keeps the object byte-identical across builds, so concurrent builds
  // of one module publish one object (the cache stores it under its digest).
  //
  // Every guest address is a 32-bit add zero-extended to 64 bits. Wrapping is
  // wasm's semantics, so the add cannot be widened
  // (test/lit/run/address-arithmetic-wraps.c), and a vectorised loop pays an
  // add and a zero-extension per address stream and step on top of its
  // counter and branch. Up to four interleaved vector bodies per iteration
  // spread that cost over more elements: the cap rises from x86's two, and
  // loops up to ten times the usual "small" cost may use it. Loops that stay
  // scalar keep x86's choice, no interleaving: forcing four bodies on every
  // loop made nussinov's strided integer max keep four address streams,
  // which spilled the memory base (1.3x native against 1.1x;
  // test/lit/run/aot-interleaves-vector-loops-only.c). No result changes.
  auto clang = util::runProcess({toolpaths::kClang, "-O2", "-mllvm",
                                 "-force-target-max-vector-interleave=4", "-mllvm",
                                 "-small-loop-cost=200",
                                 "-gline-tables-only", "-gdwarf-4", "-fPIC", "-shared", "-w",
                                 "-ffile-prefix-map=" + work + "=.",
                                 "-ffp-contract=off", "-fno-strict-aliasing",
                                 std::string("-I") + toolpaths::kWasmRtInclude, "-I" + work, cPath,
                                 gluePath, "-o", soPath});
  if (clang.exitCode != 0) {
    error = "native compile of " + request.displayName + " failed: " + firstLine(clang.output);
    return std::nullopt;
  }
  return cache->publish(key, soPath, error);
}

}  // namespace

std::optional<std::string> compileToSharedObject(const AotRequest& request, std::string& error) {
  const std::string scope = keyScope();
  util::Sha256 keyHash;
  keyHash.update(scope);
  keyHash.update(request.wasmBytes);
  const std::string key = keyHash.hexDigest() + ".so";
  auto object = findOrBuild(request, key, error);
  if (object && request.file)
    if (auto cache = objectcache::ObjectCache::openExisting("aot"))
      cache->recordKeyOfFile(request.file->fd, request.file->readFrom, scope, key);
  return object;
}

std::optional<std::string> findCompiledModuleFile(int fd) {
  auto cache = objectcache::ObjectCache::openExisting("aot");
  if (!cache) return std::nullopt;
  auto key = cache->keyOfUnchangedFile(fd, keyScope());
  if (!key) return std::nullopt;
  return cache->find(*key);
}

}  // namespace synergy::granule

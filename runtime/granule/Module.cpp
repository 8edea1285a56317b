//===- Module.cpp - an AOT-compiled wasm module, loaded --------------------===//
#include "granule/Module.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "granule/AotCompiler.h"
#include "granule/GlueWriter.h"
#include "sandbox/UniqueFd.h"
#include "synergy/ToolPaths.h"
#include "util/FileIO.h"
#include "util/Subprocess.h"

namespace synergy::granule {
namespace {

// Far above any real program, far below what would exhaust the host: the
// bytes are held in memory and passed through wasm2c and clang.
constexpr size_t kMaxWasmBytes = size_t(1) << 30;

template <typename Fn>
bool bindSymbol(void* handle, const char* name, Fn& fn, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!fn) error = std::string("AOT object lacks ") + name;
  return fn != nullptr;
}

// wasm2c names functions w2c_<name>; exported wrappers are Z_guestZ_<name>.
std::string wasmNameOfSymbol(const std::string& symbol) {
  if (symbol.rfind("w2c_", 0) == 0) return symbol.substr(4);
  if (symbol.rfind("Z_guestZ_", 0) == 0) return symbol.substr(9);
  return symbol;
}

// The executable PT_LOAD segment of the loaded object that contains `code`.
struct CodeSegmentSearch {
  uintptr_t code;
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

int findCodeSegment(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<CodeSegmentSearch*>(data);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_X)) continue;
    uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (search->code >= begin && search->code < begin + segment.p_memsz) {
      search->begin = begin;
      search->end = begin + segment.p_memsz;
      return 1;
    }
  }
  return 0;
}

}  // namespace

std::shared_ptr<Module> Module::loadFile(const std::string& wasmPath, std::string& error,
                                         bool showProgress) {
  sandbox::UniqueFd fd(open(wasmPath.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    error = wasmPath + ": " + std::strerror(errno);
    return nullptr;
  }
  // A warm start: the unchanged file's object, found without reading it.
  auto soPath = findCompiledModuleFile(fd.get());
  if (!soPath) {
    ModuleFile file{fd.get()};
    auto bytes = util::readRegularFile(fd.get(), wasmPath, kMaxWasmBytes, file.readFrom, error);
    if (!bytes) return nullptr;
    soPath = compileToSharedObject({*bytes, wasmPath, showProgress, &file}, error);
  }
  return bindObject(soPath, wasmPath, error);
}

std::shared_ptr<Module> Module::loadBytes(const std::string& wasmBytes,
                                          const std::string& displayName, std::string& error,
                                          bool showProgress) {
  return bindObject(compileToSharedObject({wasmBytes, displayName, showProgress}, error),
                    displayName, error);
}

std::shared_ptr<Module> Module::bindObject(const std::optional<std::string>& soPath,
                                           const std::string& displayName, std::string& error) {
  if (!soPath) {
    error = displayName + ": " + error;
    return nullptr;
  }
  std::shared_ptr<Module> module(new Module);
  if (!module->bind(*soPath, error)) {
    error = displayName + ": " + error;
    return nullptr;
  }
  return module;
}

bool Module::bind(const std::string& soPath, std::string& error) {
  soPath_ = soPath;
  handle_ = dlopen(soPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    error = std::string("cannot load AOT object: ") + dlerror();
    return false;
  }
  size_t (*instanceSize)() = nullptr;
  void (*initModule)() = nullptr;
  uint32_t (*exportCount)() = nullptr;
  const char* (*exportName)(uint32_t) = nullptr;
  int (*exportKind)(uint32_t) = nullptr;
  void* (*exportAddress)(uint32_t) = nullptr;
  uint32_t (*globalCount)() = nullptr;
  uint32_t (*globalOffset)(uint32_t) = nullptr;
  uint32_t (*globalSize)(uint32_t) = nullptr;
  const char* (*globalName)(uint32_t) = nullptr;
  if (!bindSymbol(handle_, "synergy_glue_instance_size", instanceSize, error) ||
      !bindSymbol(handle_, "synergy_glue_init_module", initModule, error) ||
      !bindSymbol(handle_, "synergy_glue_instantiate", instantiate_, error) ||
      !bindSymbol(handle_, "synergy_glue_free", free_, error) ||
      !bindSymbol(handle_, "synergy_glue_set_host", setHost_, error) ||
      !bindSymbol(handle_, "synergy_glue_memory", memory_, error) ||
      !bindSymbol(handle_, "synergy_glue_table", table_, error) ||
      !bindSymbol(handle_, "synergy_glue_export_count", exportCount, error) ||
      !bindSymbol(handle_, "synergy_glue_export_name", exportName, error) ||
      !bindSymbol(handle_, "synergy_glue_export_kind", exportKind, error) ||
      !bindSymbol(handle_, "synergy_glue_export_address", exportAddress, error) ||
      !bindSymbol(handle_, "synergy_glue_global_count", globalCount, error) ||
      !bindSymbol(handle_, "synergy_glue_global_offset", globalOffset, error) ||
      !bindSymbol(handle_, "synergy_glue_global_size", globalSize, error) ||
      !bindSymbol(handle_, "synergy_glue_global_name", globalName, error))
    return false;
  instanceSize_ = instanceSize();
  initModule();
  for (uint32_t i = 0; i < exportCount(); ++i)
    exports_.push_back({exportName(i), exportKind(i), exportAddress(i)});
  for (uint32_t i = 0; i < globalCount(); ++i)
    globals_.push_back({globalOffset(i), globalSize(i), globalName(i)});
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(instantiate_), &info) && info.dli_fbase)
    loadBase_ = reinterpret_cast<uintptr_t>(info.dli_fbase);
  CodeSegmentSearch search{reinterpret_cast<uintptr_t>(instantiate_)};
  dl_iterate_phdr(findCodeSegment, &search);
  codeBegin_ = search.begin;
  codeEnd_ = search.end;
  return true;
}

Module::~Module() {
  if (handle_) dlclose(handle_);
}

const GlobalSlot* Module::global(std::string_view name) const {
  for (const auto& slot : globals_)
    if (slot.name == name) return &slot;
  return nullptr;
}

void* Module::exportedFunction(const std::string& name) const {
  for (const auto& e : exports_)
    if (e.name == name && e.kind == int(GlueExportKind::Function)) return e.address;
  return nullptr;
}

std::string Module::functionNameAt(uintptr_t pc) const {
  Dl_info info;
  if (!pc || !dladdr(reinterpret_cast<void*>(pc), &info) ||
      reinterpret_cast<uintptr_t>(info.dli_fbase) != loadBase_)
    return "<unknown>";
  // Only the trap path gets here, so an external symbolizer is affordable; it
  // reads the object's line tables and reports the innermost inlined frame.
  char offset[32];
  std::snprintf(offset, sizeof offset, "0x%lx", static_cast<unsigned long>(pc - loadBase_));
  auto symbolized = util::runProcess({toolpaths::kLlvmSymbolizer, "--obj=" + soPath_,
                                      "--functions=linkage", "--inlining", offset});
  if (symbolized.exitCode != 0) return "<unknown>";
  // Frames alternate "function" and "file:line" lines, innermost first; the
  // innermost frames may be wasm2c's load/store helpers, not wasm functions.
  size_t pos = 0;
  for (bool nameLine = true; pos < symbolized.output.size(); nameLine = !nameLine) {
    size_t end = symbolized.output.find('\n', pos);
    if (end == std::string::npos) end = symbolized.output.size();
    std::string line = symbolized.output.substr(pos, end - pos);
    pos = end + 1;
    if (nameLine && (line.rfind("w2c_", 0) == 0 || line.rfind("Z_guestZ_", 0) == 0))
      return wasmNameOfSymbol(line);
  }
  return "<unknown>";
}

}  // namespace synergy::granule

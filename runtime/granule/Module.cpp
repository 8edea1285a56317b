//===- Module.cpp - an AOT-compiled wasm module, loaded --------------------===//
#include "granule/Module.h"

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "granule/AotCompiler.h"
#include "granule/GlueWriter.h"
#include "util/FileIO.h"

namespace synergy::granule {
namespace {

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

}  // namespace

std::shared_ptr<Module> Module::loadFile(const std::string& wasmPath, std::string& error,
                                         bool showProgress) {
  auto bytes = util::readFile(wasmPath);
  if (!bytes) {
    error = wasmPath + ": " + std::strerror(errno);
    return nullptr;
  }
  return loadBytes(*bytes, wasmPath, error, showProgress);
}

std::shared_ptr<Module> Module::loadBytes(const std::string& wasmBytes,
                                          const std::string& displayName, std::string& error,
                                          bool showProgress) {
  AotRequest request{wasmBytes, displayName, showProgress};
  auto soPath = compileToSharedObject(request, error);
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
  if (!bindSymbol(handle_, "synergy_glue_instance_size", instanceSize, error) ||
      !bindSymbol(handle_, "synergy_glue_init_module", initModule, error) ||
      !bindSymbol(handle_, "synergy_glue_instantiate", instantiate_, error) ||
      !bindSymbol(handle_, "synergy_glue_free", free_, error) ||
      !bindSymbol(handle_, "synergy_glue_memory", memory_, error) ||
      !bindSymbol(handle_, "synergy_glue_table", table_, error) ||
      !bindSymbol(handle_, "synergy_glue_export_count", exportCount, error) ||
      !bindSymbol(handle_, "synergy_glue_export_name", exportName, error) ||
      !bindSymbol(handle_, "synergy_glue_export_kind", exportKind, error) ||
      !bindSymbol(handle_, "synergy_glue_export_address", exportAddress, error) ||
      !bindSymbol(handle_, "synergy_glue_global_count", globalCount, error) ||
      !bindSymbol(handle_, "synergy_glue_global_offset", globalOffset, error) ||
      !bindSymbol(handle_, "synergy_glue_global_size", globalSize, error))
    return false;
  instanceSize_ = instanceSize();
  initModule();
  for (uint32_t i = 0; i < exportCount(); ++i)
    exports_.push_back({exportName(i), exportKind(i), exportAddress(i)});
  for (uint32_t i = 0; i < globalCount(); ++i)
    globals_.push_back({globalOffset(i), globalSize(i)});
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(instantiate_), &info) && info.dli_fbase)
    loadBase_ = reinterpret_cast<uintptr_t>(info.dli_fbase);
  return true;
}

Module::~Module() {
  if (handle_) dlclose(handle_);
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
  // Static functions are only in .symtab, which dladdr does not search.
  auto image = util::readFile(soPath_);
  if (!image || image->size() < sizeof(Elf64_Ehdr)) return "<unknown>";
  const auto* bytes = reinterpret_cast<const uint8_t*>(image->data());
  const auto* header = reinterpret_cast<const Elf64_Ehdr*>(bytes);
  if (header->e_shoff + uint64_t(header->e_shnum) * sizeof(Elf64_Shdr) > image->size())
    return "<unknown>";
  const auto* sections = reinterpret_cast<const Elf64_Shdr*>(bytes + header->e_shoff);
  uintptr_t offset = pc - loadBase_;
  for (int s = 0; s < header->e_shnum; ++s) {
    if (sections[s].sh_type != SHT_SYMTAB) continue;
    const auto& strtab = sections[sections[s].sh_link];
    const auto* symbols = reinterpret_cast<const Elf64_Sym*>(bytes + sections[s].sh_offset);
    size_t count = sections[s].sh_size / sizeof(Elf64_Sym);
    for (size_t i = 0; i < count; ++i) {
      const auto& sym = symbols[i];
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC) continue;
      if (offset < sym.st_value || offset >= sym.st_value + sym.st_size) continue;
      const char* name = reinterpret_cast<const char*>(bytes + strtab.sh_offset + sym.st_name);
      return wasmNameOfSymbol(name);
    }
  }
  return "<unknown>";
}

}  // namespace synergy::granule

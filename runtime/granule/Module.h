//===- Module.h - an AOT-compiled wasm module, loaded ----------------------===//
//
// A Module is the shared object the AOT step produced for one wasm binary,
// opened with dlopen and seen through the fixed glue interface (see
// GlueWriter.h). Many granules instantiate one Module.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <wasm-rt.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace synergy::granule {

struct GlobalSlot {
  uint32_t offset;  // byte offset inside the instance struct
  uint32_t size;    // 4 or 8
  std::string name;  // the wasm global's name, e.g. "__stack_pointer"
};

class Module {
 public:
  // Compiles (or finds in the cache) and loads a wasm module. Returns nullptr
  // with a one-line `error` for unreadable, malformed or unloadable input.
  static std::shared_ptr<Module> loadFile(const std::string& wasmPath, std::string& error,
                                          bool showProgress = false);
  static std::shared_ptr<Module> loadBytes(const std::string& wasmBytes,
                                           const std::string& displayName, std::string& error,
                                           bool showProgress = false);
  ~Module();

  size_t instanceSize() const { return instanceSize_; }
  void instantiate(void* instance, void* host) const { instantiate_(instance, host); }
  void freeInstance(void* instance) const { free_(instance); }
  // Points every import of `instance` at `host` (a copied instance struct
  // still names the granule it was copied from).
  void setHost(void* instance, void* host) const { setHost_(instance, host); }
  wasm_rt_memory_t* memory(void* instance) const { return memory_(instance); }
  wasm_rt_funcref_table_t* table(void* instance) const { return table_(instance); }
  // The native entry of an exported function (signature known to the caller),
  // or nullptr.
  void* exportedFunction(const std::string& name) const;
  const std::vector<GlobalSlot>& globals() const { return globals_; }
  const GlobalSlot* global(std::string_view name) const;

  // The executable segment of the shared object: the module's machine code,
  // and the only code a time-limit signal may unwind (GuestExecution.h).
  uintptr_t codeBegin() const { return codeBegin_; }
  uintptr_t codeEnd() const { return codeEnd_; }

  // The wasm function containing native code address `pc`, or "<unknown>".
  std::string functionNameAt(uintptr_t pc) const;

 private:
  Module() = default;
  // The module of the object at `soPath` (nullopt: `error` says why there is
  // none), or nullptr with `error`, prefixed with `displayName`.
  static std::shared_ptr<Module> bindObject(const std::optional<std::string>& soPath,
                                            const std::string& displayName, std::string& error);
  bool bind(const std::string& soPath, std::string& error);

  void* handle_ = nullptr;
  std::string soPath_;
  uintptr_t loadBase_ = 0;
  uintptr_t codeBegin_ = 0;
  uintptr_t codeEnd_ = 0;
  size_t instanceSize_ = 0;
  void (*instantiate_)(void*, void*) = nullptr;
  void (*free_)(void*) = nullptr;
  void (*setHost_)(void*, void*) = nullptr;
  wasm_rt_memory_t* (*memory_)(void*) = nullptr;
  wasm_rt_funcref_table_t* (*table_)(void*) = nullptr;
  struct Export {
    std::string name;
    int kind;
    void* address;
  };
  std::vector<Export> exports_;
  std::vector<GlobalSlot> globals_;
};

}  // namespace synergy::granule

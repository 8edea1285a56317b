//===- GlueWriter.h - the fixed C interface around a wasm2c module ---------===//
//
// wasm2c's interface depends on the module: the instance struct's size, the
// instantiate function's list of import instances, and its exports. The
// runtime loads every module the same way, so the AOT step generates a small
// C file from wasm2c's header that exposes one fixed set of functions:
//
//   size_t      synergy_glue_instance_size(void);
//   void        synergy_glue_init_module(void);
//   void        synergy_glue_instantiate(void* instance, void* host);
//   void        synergy_glue_set_host(void* instance, void* host); // rebind imports
//   void        synergy_glue_free(void* instance);
//   wasm_rt_memory_t*        synergy_glue_memory(void* instance);
//   wasm_rt_funcref_table_t* synergy_glue_table(void* instance);
//   uint32_t    synergy_glue_export_count(void);
//   const char* synergy_glue_export_name(uint32_t i);
//   int         synergy_glue_export_kind(uint32_t i);    // GlueExportKind
//   void*       synergy_glue_export_address(uint32_t i); // function pointer
//   uint32_t    synergy_glue_global_count(void);
//   uint32_t    synergy_glue_global_offset(uint32_t i);  // in the instance
//   uint32_t    synergy_glue_global_size(uint32_t i);
//   const char* synergy_glue_global_name(uint32_t i);   // wasm2c's, minus "w2c_"
//
// The header is generated from a hostile module, so nothing is copied out of
// it that has not been parsed whole: import and export comments must hold
// exactly the expected quoted safe names (see WasmModuleCheck.h), symbols and
// copied fields must be C identifiers, and copied types one of the few wasm2c
// emits there; anything else fails the build with an error.
//
// Every import instance pointer is the same `host` pointer (the Granule).
// Imports the runtime does not provide become stubs that trap when called,
// as a wasm engine with lazy linking would, except env.invoke_*, the calls
// of LLVM's setjmp/longjmp lowering: each becomes a typed trampoline around
// synergy_setjmp_invoke (SetjmpLongjmp.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace synergy::granule {

enum class GlueExportKind { Function = 0, Memory = 1, Global = 2, Table = 3 };

struct Glue {
  std::string source;                          // the generated C file
  std::string memoryField;                     // instance field of the memory
  std::vector<std::string> unresolvedImports;  // "module.name"
};

// `isProvided(symbol)` says whether the host defines an import's C symbol.
bool writeGlue(const std::string& wasm2cHeader, const std::string& moduleName,
               const std::function<bool(const std::string&)>& isProvided, Glue& glue,
               std::string& error);

}  // namespace synergy::granule

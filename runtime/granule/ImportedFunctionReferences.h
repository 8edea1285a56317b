//===- ImportedFunctionReferences.h - post-pass over wasm2c output ---------===//
//
// wasm2c 1.0.32 builds each table entry from an element segment record
// {type, function, module_offset} as `instance + module_offset`. For a
// function the module defines, the offset is 0 and the entry's instance is
// the module's own. For an imported function the offset is that of the
// instance field *holding* the import's instance pointer, so the entry names
// the field's address, not the pointer in it (with the field first in the
// struct, the module's own instance). A call through the table (call_indirect
// on an imported function's address, or the invoke_* trampolines of
// setjmp/longjmp, which call every callee of a setjmp-calling function
// through the table) then handed the host function the guest's instance
// struct where it expects its own host object, and the host crashed (an MPI
// call inside a function that calls setjmp).
//
// The rewrite marks each imported function's record (the only records
// wasm2c writes with `offsetof`) with the top bit of its offset, and makes
// funcref_table_init read the pointer stored in the field for a marked
// record. It is textual, like MemoryBaseHoisting, and runs on the generated
// C before it is compiled.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace synergy::granule {

// Rewrites the element records and funcref_table_init in `cSource`. Returns
// false, leaving the source untouched, when funcref_table_init has a shape
// this pass does not know (a wasm2c it was not written for); true otherwise,
// including for a module with no table, whose source has no such helper.
bool resolveImportedFunctionReferences(std::string& cSource);

}  // namespace synergy::granule

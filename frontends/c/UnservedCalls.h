//===- UnservedCalls.h - name the calls the runtime does not serve --------===//
//
// The linker admits exactly the MPI, OpenMP and pthreads functions the
// runtime serves (control-points.syms), so a call to any other one is an
// undefined symbol. This turns wasm-ld's message for it into one that says
// what is wrong: the function exists in MPI, OpenMP or POSIX threads but not
// in this runtime, and where it is called.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <string>

namespace synergy::frontend_c {

// Rewrites each "<linker>: error: <object>: undefined symbol: MPI_X" line of
// `linkerMessages` (MPI_, PMPI_, __kmpc_, omp_ or pthread_) as
// "<driverName>: error: <file>: MPI_X is not supported by the Synergy
// runtime", where <file> is the source that
// `sourceOfObject` maps the object to, or the object itself. Other lines stay
// as they are.
std::string explainUnservedCalls(const std::string& linkerMessages, const std::string& driverName,
                                 const std::map<std::string, std::string>& sourceOfObject);

}  // namespace synergy::frontend_c

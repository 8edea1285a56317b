//===- UnservedCalls.cpp - name the calls the runtime does not serve -----===//
//
// wasm-ld reports an undefined symbol as
//   wasm-ld-19: error: /tmp/synergy-cc-Xy/0-prog.o: undefined symbol: MPI_Foo
// which reads like a missing library. The driver compiles each source into
// a scratch object, so the object is mapped back to the user's file.
//
//===----------------------------------------------------------------------===//
#include "frontends/c/UnservedCalls.h"

#include <string_view>

namespace synergy::frontend_c {

// The families of names the runtime serves as control points: any other
// name of theirs is one it does not serve.
static bool isControlPointFamily(std::string_view symbol) {
  return symbol.starts_with("MPI_") || symbol.starts_with("PMPI_") ||
         symbol.starts_with("__kmpc_") || symbol.starts_with("omp_") ||
         symbol.starts_with("pthread_");
}

// The explanation for one linker line, or the line itself.
static std::string explainLine(std::string_view line, const std::string& driverName,
                               const std::map<std::string, std::string>& sourceOfObject) {
  static constexpr std::string_view kError = ": error: ";
  static constexpr std::string_view kUndefined = ": undefined symbol: ";
  size_t error = line.find(kError);
  if (error == std::string_view::npos) return std::string(line);
  std::string_view located = line.substr(error + kError.size());
  size_t undefined = located.rfind(kUndefined);
  if (undefined == std::string_view::npos) return std::string(line);
  std::string_view symbol = located.substr(undefined + kUndefined.size());
  if (!isControlPointFamily(symbol)) return std::string(line);
  std::string file(located.substr(0, undefined));
  auto source = sourceOfObject.find(file);
  if (source != sourceOfObject.end()) file = source->second;
  return driverName + ": error: " + file + ": " + std::string(symbol) +
         " is not supported by the Synergy runtime";
}

std::string explainUnservedCalls(const std::string& linkerMessages, const std::string& driverName,
                                 const std::map<std::string, std::string>& sourceOfObject) {
  std::string explained;
  size_t start = 0;
  while (start < linkerMessages.size()) {
    size_t end = linkerMessages.find('\n', start);
    bool terminated = end != std::string::npos;
    if (!terminated) end = linkerMessages.size();
    explained += explainLine(std::string_view(linkerMessages).substr(start, end - start),
                             driverName, sourceOfObject);
    if (terminated) explained += '\n';
    start = end + 1;
  }
  return explained;
}

}  // namespace synergy::frontend_c

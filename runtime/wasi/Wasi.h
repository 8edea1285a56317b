//===- Wasi.h - WASI preview1 host functions for granules ------------------===//
//
// This library defines every `wasi_snapshot_preview1` import as the C symbol
// wasm2c-compiled granules call (see WasiImports.h); the AOT shared object
// resolves them against the executable that links this library. This header
// is what the rest of the runtime needs besides those symbols: the list of
// imports provided, to reject a module that wants others with a clear error,
// and an early check of the --dir preopens.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "granule/Granule.h"

namespace synergy::wasi {

inline constexpr std::string_view kModuleName = "wasi_snapshot_preview1";

struct HostFunction {
  std::string_view name;  // the import's field name, e.g. "fd_write"
  void* address;
};

// Every import of kModuleName this library defines. Referencing the table
// also keeps all of them in a statically linked executable.
std::span<const HostFunction> hostFunctions();

// Whether `module`.`name` is a WASI import this library defines.
bool providesImport(std::string_view module, std::string_view name);

// A one-line description of the first preopen whose host directory cannot be
// opened, or nullopt when all can. The granule would trap on its first WASI
// call otherwise; checking first lets a CLI report a usage error instead.
std::optional<std::string> checkPreopens(const granule::GranuleConfig& config);

}  // namespace synergy::wasi

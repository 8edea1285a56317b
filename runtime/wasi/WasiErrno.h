//===- WasiErrno.h - host errno to WASI errno ------------------------------===//
//
// WASI numbers its errno values alphabetically, so a Linux errno must be
// translated before the guest sees it; passing it through would turn, say,
// ENOENT (2) into WASI's EACCES (2).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "wasi/WasiAbi.h"

namespace synergy::wasi {

// The WASI errno for a Linux errno value. Values with no WASI counterpart
// become Errno::Io.
Errno errnoFromHost(int hostErrno);

// The WASI errno for an error the sandbox resolver reports: its escape
// (sandbox::kEscapes) is ENOTCAPABLE, anything else a host errno.
Errno errnoFromSandbox(int sandboxError);

}  // namespace synergy::wasi

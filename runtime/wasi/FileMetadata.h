//===- FileMetadata.h - host file metadata in WASI form --------------------===//
//
// The conversions fd_* and path_* share: a host stat as a WASI filestat and
// file type, and WASI's (time, time, fstflags) triple as utimensat times.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/stat.h>

#include <cstdint>

#include "wasi/WasiAbi.h"

namespace synergy::wasi {

Filetype filetypeOfMode(mode_t mode);

// Writes a 64-byte WASI filestat for `info` at `out`.
void storeFilestat(uint8_t* out, const struct stat& info);

// Fills `times` (access, modification) for futimens/utimensat, or returns
// Errno::Inval when a time is both given and asked to be "now".
Errno timesFromWasi(uint64_t accessTime, uint64_t modifyTime, uint32_t flags,
                    struct timespec times[2]);

}  // namespace synergy::wasi

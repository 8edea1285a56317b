//===- HostFunctionTable.cpp - the WASI imports this library provides ------===//
//
// One row per function declared in WasiImports.h, sorted by name. Because the
// rows take each function's address, linking anything that uses the table
// pulls every host function into the executable, where the AOT shared
// objects look them up.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "wasi/Wasi.h"
#include "wasi/WasiImports.h"

namespace synergy::wasi {

static const HostFunction kHostFunctions[] = {
    {"args_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_args_get)},
    {"args_sizes_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_args_sizes_get)},
    {"clock_res_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_clock_res_get)},
    {"clock_time_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_clock_time_get)},
    {"environ_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_environ_get)},
    {"environ_sizes_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_environ_sizes_get)},
    {"fd_advise", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_advise)},
    {"fd_allocate", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_allocate)},
    {"fd_close", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_close)},
    {"fd_datasync", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_datasync)},
    {"fd_fdstat_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_fdstat_get)},
    {"fd_fdstat_set_flags", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags)},
    {"fd_fdstat_set_rights", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights)},
    {"fd_filestat_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_filestat_get)},
    {"fd_filestat_set_size", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_filestat_set_size)},
    {"fd_filestat_set_times", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_filestat_set_times)},
    {"fd_pread", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_pread)},
    {"fd_prestat_dir_name", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_prestat_dir_name)},
    {"fd_prestat_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_prestat_get)},
    {"fd_pwrite", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_pwrite)},
    {"fd_read", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_read)},
    {"fd_readdir", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_readdir)},
    {"fd_renumber", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_renumber)},
    {"fd_seek", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_seek)},
    {"fd_sync", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_sync)},
    {"fd_tell", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_tell)},
    {"fd_write", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_fd_write)},
    {"path_create_directory", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_create_directory)},
    {"path_filestat_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_filestat_get)},
    {"path_filestat_set_times", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_filestat_set_times)},
    {"path_link", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_link)},
    {"path_open", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_open)},
    {"path_readlink", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_readlink)},
    {"path_remove_directory", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_remove_directory)},
    {"path_rename", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_rename)},
    {"path_symlink", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_symlink)},
    {"path_unlink_file", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_path_unlink_file)},
    {"poll_oneoff", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_poll_oneoff)},
    {"proc_exit", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_proc_exit)},
    {"proc_raise", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_proc_raise)},
    {"random_get", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_random_get)},
    {"sched_yield", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_sched_yield)},
    {"sock_accept", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_sock_accept)},
    {"sock_recv", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_sock_recv)},
    {"sock_send", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_sock_send)},
    {"sock_shutdown", reinterpret_cast<void*>(&Z_wasi_snapshot_preview1Z_sock_shutdown)},
};

std::span<const HostFunction> hostFunctions() { return kHostFunctions; }

bool providesImport(std::string_view module, std::string_view name) {
  if (module != kModuleName) return false;
  return std::any_of(std::begin(kHostFunctions), std::end(kHostFunctions),
                     [&](const HostFunction& f) { return f.name == name; });
}

}  // namespace synergy::wasi

//===- WasiImports.h - the C symbols wasm2c-compiled granules call ---------===//
//
// wasm2c 1.0.32 turns the import `wasi_snapshot_preview1.<name>` into a call
// to `Z_wasi_snapshot_preview1Z_<name>`, whose first argument is the import
// instance pointer (for us, the granule). wasm i32 arguments arrive as
// uint32_t and i64 as uint64_t; every function except proc_exit returns a
// WASI errno. The AOT shared object resolves these names against the
// synergy-run executable, so they are C symbols with exactly these types.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

struct Z_wasi_snapshot_preview1_instance_t;

extern "C" {
using WasiInstance = Z_wasi_snapshot_preview1_instance_t;

// Process: args, environment, exit, signals, scheduling, randomness.
uint32_t Z_wasi_snapshot_preview1Z_args_get(WasiInstance*, uint32_t argv, uint32_t argvBuf);
uint32_t Z_wasi_snapshot_preview1Z_args_sizes_get(WasiInstance*, uint32_t argcOut,
                                                  uint32_t argvBufSizeOut);
uint32_t Z_wasi_snapshot_preview1Z_environ_get(WasiInstance*, uint32_t environPointers,
                                               uint32_t environBuf);
uint32_t Z_wasi_snapshot_preview1Z_environ_sizes_get(WasiInstance*, uint32_t countOut,
                                                     uint32_t bufSizeOut);
void Z_wasi_snapshot_preview1Z_proc_exit(WasiInstance*, uint32_t code);
uint32_t Z_wasi_snapshot_preview1Z_proc_raise(WasiInstance*, uint32_t signal);
uint32_t Z_wasi_snapshot_preview1Z_sched_yield(WasiInstance*);
uint32_t Z_wasi_snapshot_preview1Z_random_get(WasiInstance*, uint32_t buf, uint32_t length);

// Clocks and waiting.
uint32_t Z_wasi_snapshot_preview1Z_clock_res_get(WasiInstance*, uint32_t clockId,
                                                 uint32_t resolutionOut);
uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(WasiInstance*, uint32_t clockId,
                                                  uint64_t precision, uint32_t timeOut);
uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(WasiInstance*, uint32_t subscriptions,
                                               uint32_t events, uint32_t count,
                                               uint32_t eventCountOut);

// Descriptors.
uint32_t Z_wasi_snapshot_preview1Z_fd_advise(WasiInstance*, uint32_t fd, uint64_t offset,
                                             uint64_t length, uint32_t advice);
uint32_t Z_wasi_snapshot_preview1Z_fd_allocate(WasiInstance*, uint32_t fd, uint64_t offset,
                                               uint64_t length);
uint32_t Z_wasi_snapshot_preview1Z_fd_close(WasiInstance*, uint32_t fd);
uint32_t Z_wasi_snapshot_preview1Z_fd_datasync(WasiInstance*, uint32_t fd);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(WasiInstance*, uint32_t fd, uint32_t statOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(WasiInstance*, uint32_t fd,
                                                       uint32_t flags);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(WasiInstance*, uint32_t fd,
                                                        uint64_t base, uint64_t inheriting);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_get(WasiInstance*, uint32_t fd,
                                                   uint32_t statOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_size(WasiInstance*, uint32_t fd,
                                                        uint64_t size);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_times(WasiInstance*, uint32_t fd,
                                                         uint64_t accessTime,
                                                         uint64_t modifyTime, uint32_t flags);
uint32_t Z_wasi_snapshot_preview1Z_fd_pread(WasiInstance*, uint32_t fd, uint32_t iovs,
                                            uint32_t iovsCount, uint64_t offset,
                                            uint32_t readOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_get(WasiInstance*, uint32_t fd,
                                                  uint32_t prestatOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(WasiInstance*, uint32_t fd,
                                                       uint32_t path, uint32_t length);
uint32_t Z_wasi_snapshot_preview1Z_fd_pwrite(WasiInstance*, uint32_t fd, uint32_t iovs,
                                             uint32_t iovsCount, uint64_t offset,
                                             uint32_t writtenOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_read(WasiInstance*, uint32_t fd, uint32_t iovs,
                                           uint32_t iovsCount, uint32_t readOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_readdir(WasiInstance*, uint32_t fd, uint32_t buf,
                                              uint32_t length, uint64_t cookie,
                                              uint32_t usedOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_renumber(WasiInstance*, uint32_t from, uint32_t to);
uint32_t Z_wasi_snapshot_preview1Z_fd_seek(WasiInstance*, uint32_t fd, uint64_t offset,
                                           uint32_t whence, uint32_t newOffsetOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_sync(WasiInstance*, uint32_t fd);
uint32_t Z_wasi_snapshot_preview1Z_fd_tell(WasiInstance*, uint32_t fd, uint32_t offsetOut);
uint32_t Z_wasi_snapshot_preview1Z_fd_write(WasiInstance*, uint32_t fd, uint32_t iovs,
                                            uint32_t iovsCount, uint32_t writtenOut);

// Paths, always relative to a directory descriptor.
uint32_t Z_wasi_snapshot_preview1Z_path_create_directory(WasiInstance*, uint32_t fd,
                                                         uint32_t path, uint32_t length);
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_get(WasiInstance*, uint32_t fd,
                                                     uint32_t lookupFlags, uint32_t path,
                                                     uint32_t length, uint32_t statOut);
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_set_times(WasiInstance*, uint32_t fd,
                                                           uint32_t lookupFlags, uint32_t path,
                                                           uint32_t length, uint64_t accessTime,
                                                           uint64_t modifyTime, uint32_t flags);
uint32_t Z_wasi_snapshot_preview1Z_path_link(WasiInstance*, uint32_t oldFd,
                                             uint32_t oldLookupFlags, uint32_t oldPath,
                                             uint32_t oldLength, uint32_t newFd,
                                             uint32_t newPath, uint32_t newLength);
uint32_t Z_wasi_snapshot_preview1Z_path_open(WasiInstance*, uint32_t dirFd, uint32_t lookupFlags,
                                             uint32_t path, uint32_t length, uint32_t openFlags,
                                             uint64_t rightsBase, uint64_t rightsInheriting,
                                             uint32_t fdFlags, uint32_t fdOut);
uint32_t Z_wasi_snapshot_preview1Z_path_readlink(WasiInstance*, uint32_t fd, uint32_t path,
                                                 uint32_t length, uint32_t buf,
                                                 uint32_t bufLength, uint32_t usedOut);
uint32_t Z_wasi_snapshot_preview1Z_path_remove_directory(WasiInstance*, uint32_t fd,
                                                         uint32_t path, uint32_t length);
uint32_t Z_wasi_snapshot_preview1Z_path_rename(WasiInstance*, uint32_t oldFd, uint32_t oldPath,
                                               uint32_t oldLength, uint32_t newFd,
                                               uint32_t newPath, uint32_t newLength);
uint32_t Z_wasi_snapshot_preview1Z_path_symlink(WasiInstance*, uint32_t target,
                                                uint32_t targetLength, uint32_t fd,
                                                uint32_t path, uint32_t length);
uint32_t Z_wasi_snapshot_preview1Z_path_unlink_file(WasiInstance*, uint32_t fd, uint32_t path,
                                                    uint32_t length);

// Sockets: preview1 can only use sockets handed in by the host, and
// synergy-run hands in none.
uint32_t Z_wasi_snapshot_preview1Z_sock_accept(WasiInstance*, uint32_t fd, uint32_t flags,
                                               uint32_t fdOut);
uint32_t Z_wasi_snapshot_preview1Z_sock_recv(WasiInstance*, uint32_t fd, uint32_t iovs,
                                             uint32_t iovsCount, uint32_t flags,
                                             uint32_t readOut, uint32_t flagsOut);
uint32_t Z_wasi_snapshot_preview1Z_sock_send(WasiInstance*, uint32_t fd, uint32_t iovs,
                                             uint32_t iovsCount, uint32_t flags,
                                             uint32_t writtenOut);
uint32_t Z_wasi_snapshot_preview1Z_sock_shutdown(WasiInstance*, uint32_t fd, uint32_t how);
}

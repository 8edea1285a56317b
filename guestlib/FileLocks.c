//===- FileLocks.c - fcntl record locks for granules -----------------------===//
//
// This file implements F_GETLK, F_SETLK and F_SETLKW, which wasi-libc's fcntl
// refuses with EINVAL (and SQLite then reports as a disk I/O error).
// synergy-cc links with --wrap=fcntl, so every fcntl call comes here: lock
// commands go to the runtime (runtime/wasi/FileLockFunctions.cpp), which
// checks the request and applies it to the host file; every other command is
// wasi-libc's. WASI errno values are the guest's errno values.
//
//===----------------------------------------------------------------------===//
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

int __real_fcntl(int fd, int command, ...);

__attribute__((import_module("env"), import_name("synergy_file_lock")))
int synergy_file_lock(int fd, int command, struct flock* lock);

int __wrap_fcntl(int fd, int command, ...) {
  va_list arguments;
  va_start(arguments, command);
  if (command == F_GETLK || command == F_SETLK || command == F_SETLKW) {
    struct flock* lock = va_arg(arguments, struct flock*);
    va_end(arguments);
    int error = synergy_file_lock(fd, command, lock);
    if (error != 0) {
      errno = error;
      return -1;
    }
    return 0;
  }
  // wasi-libc's commands take an int or nothing; reading an int that was not
  // passed only reads the caller's argument area, as musl's fcntl does.
  int argument = va_arg(arguments, int);
  va_end(arguments);
  return __real_fcntl(fd, command, argument);
}

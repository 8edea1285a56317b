// The host's stdio belongs to the parent process too, so a guest may read
// and write fds 0-2 but not change them for others (WASI errnos in
// runtime/wasi/FdFunctions.cpp), and a closed fd 0-2 is held open on
// /dev/null by synergy-run before anything else can take its number.
// RUN: %synergy-cc %s -o %t.wasm
//
// Closed stdout, stdin or stderr: the guest's memory file would take the free
// number, and the guest's output would land at address 0 of its own memory.
// The guest checks that memory and reports through its exit status.
// RUN: sh -c '%synergy-run %t.wasm memory >&-; echo "status $?"' 2> %t.closed1.err \
// RUN:   | FileCheck %s --check-prefix=CLOSED
// RUN: sh -c '%synergy-run %t.wasm memory <&- > /dev/null; echo "status $?"' 2> %t.closed0.err \
// RUN:   | FileCheck %s --check-prefix=CLOSED
// RUN: sh -c '%synergy-run %t.wasm memory 2>&- > /dev/null; echo "status $?"' \
// RUN:   | FileCheck %s --check-prefix=CLOSED
// RUN: cat %t.closed1.err %t.closed0.err | count 0
// CLOSED: status 0
//
// An append log: whatever the guest tries, the earlier content stays.
// RUN: echo "earlier line" > %t.log
// RUN: %synergy-run %t.wasm shrink >> %t.log
// RUN: FileCheck %s --check-prefix=LOG < %t.log
// LOG: earlier line
// LOG-NEXT: ftruncate(1): EPERM
// LOG-NEXT: fd_filestat_set_size(1): EPERM
// LOG-NEXT: fd_allocate(1): EPERM
// LOG-NEXT: fd_filestat_set_times(1): EPERM
// LOG-NEXT: fd_fdstat_set_flags(1): EPERM
// LOG-NEXT: lseek(1, 0, SEEK_SET): ESPIPE
// LOG-NEXT: fd_tell(1): ok
// LOG-NEXT: fd_fdstat_set_flags(0, NONBLOCK): EPERM
// LOG-NEXT: still writing
//
// O_NONBLOCK on fd 0 would stay on the parent's pipe after the run.
// RUN: python3 %S/Inputs/stdin-flags-after-run.py %synergy-run %t.wasm nonblock \
// RUN:   | FileCheck %s --check-prefix=NONBLOCK
// NONBLOCK: guest: fcntl(0, F_SETFL, O_NONBLOCK): EPERM
// NONBLOCK: parent's pipe after the run: blocking
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

static const char* name(int e) {
  switch (e) {
    case 0: return "ok";
    case EPERM: return "EPERM";
    case ESPIPE: return "ESPIPE";
    case EROFS: return "EROFS";
    default: return strerror(e);
  }
}

static const char* result(int status) { return status == 0 ? "ok" : name(errno); }

// Whether the first bytes of linear memory hold what this guest wrote to
// its stdio; the linker leaves address 0 to 1023 unused, so they are zero.
static int outputLandedInMemory(void) {
  static const char kMarker[] = "MARKER-IN-MEMORY";
  const char* volatile base = 0;
  fputs(kMarker, stdout);
  fflush(stdout);
  fputs(kMarker, stderr);
  char buffer[8];
  (void)!read(0, buffer, sizeof buffer);
  return memcmp((const char*)base, kMarker, sizeof kMarker - 1) == 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (!strcmp(argv[1], "memory")) return outputLandedInMemory() ? 3 : 0;
  if (!strcmp(argv[1], "nonblock")) {
    int flags = fcntl(0, F_GETFL);
    printf("guest: fcntl(0, F_SETFL, O_NONBLOCK): %s\n", result(fcntl(0, F_SETFL, flags | O_NONBLOCK)));
    return 0;
  }
  fflush(stdout);
  printf("ftruncate(1): %s\n", result(ftruncate(1, 0)));
  printf("fd_filestat_set_size(1): %s\n", name(__wasi_fd_filestat_set_size(1, 0)));
  printf("fd_allocate(1): %s\n", name(__wasi_fd_allocate(1, 0, 1 << 20)));
  printf("fd_filestat_set_times(1): %s\n",
         name(__wasi_fd_filestat_set_times(1, 0, 0, __WASI_FSTFLAGS_MTIM)));
  printf("fd_fdstat_set_flags(1): %s\n", name(__wasi_fd_fdstat_set_flags(1, 0)));
  fflush(stdout);
  printf("lseek(1, 0, SEEK_SET): %s\n", lseek(1, 0, SEEK_SET) < 0 ? name(errno) : "MOVED");
  __wasi_filesize_t offset;
  printf("fd_tell(1): %s\n", name(__wasi_fd_tell(1, &offset)));
  printf("fd_fdstat_set_flags(0, NONBLOCK): %s\n",
         name(__wasi_fd_fdstat_set_flags(0, __WASI_FDFLAGS_NONBLOCK)));
  printf("still writing\n");
  return 0;
}

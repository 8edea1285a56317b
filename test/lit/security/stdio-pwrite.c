// fd_pwrite on the host's stdio would write anywhere in a file the parent
// redirected it to (`> log` is not opened for appending), past the guest's
// own output and over whatever the parent wrote before. It fails with
// ESPIPE, as on a pipe, like fd_seek; plain writes still go through, and
// the file keeps every line in order.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c 'echo "parent line"; %synergy-run %t.wasm 2>&1' > %t.log
// RUN: FileCheck %s --implicit-check-not=CLOBBER < %t.log
// CHECK: parent line
// CHECK-NEXT: guest line
// CHECK-NEXT: pwrite(1, at 0): ESPIPE
// CHECK-NEXT: pwrite(2, at 0): ESPIPE
// CHECK-NEXT: fd_pwrite(1, at 3): ESPIPE
// CHECK-NEXT: still writing
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

static const char* outcome(long written, int error) {
  if (written >= 0) return "WROTE";
  return error == ESPIPE ? "ESPIPE" : strerror(error);
}

int main(void) {
  printf("guest line\n");
  fflush(stdout);
  long written = pwrite(1, "CLOBBER", 7, 0);
  printf("pwrite(1, at 0): %s\n", outcome(written, errno));
  fflush(stdout);
  written = pwrite(2, "CLOBBER", 7, 0);
  printf("pwrite(2, at 0): %s\n", outcome(written, errno));
  fflush(stdout);
  __wasi_ciovec_t chunk = {(const uint8_t*)"CLOBBER", 7};
  __wasi_size_t count = 0;
  __wasi_errno_t error = __wasi_fd_pwrite(1, &chunk, 1, 3, &count);
  printf("fd_pwrite(1, at 3): %s\n", error == __WASI_ERRNO_SPIPE ? "ESPIPE" : "WROTE");
  printf("still writing\n");
  return 0;
}

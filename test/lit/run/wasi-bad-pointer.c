// A WASI call handed a pointer outside linear memory traps the guest (with
// the host function as the place) instead of touching host memory; the host
// process survives and reports it.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm write > %t.write.out 2>&1; echo "exit=$?" >> %t.write.out'
// RUN: FileCheck %s < %t.write.out
// RUN: sh -c '%synergy-run %t.wasm result > %t.result.out 2>&1; echo "exit=$?" >> %t.result.out'
// RUN: FileCheck %s < %t.result.out
// RUN: sh -c '%synergy-run %t.wasm iovec > %t.iovec.out 2>&1; echo "exit=$?" >> %t.iovec.out'
// RUN: FileCheck %s < %t.iovec.out
// CHECK: before
// CHECK-NEXT: trap: out of bounds memory access
// CHECK-NEXT: exit=134
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wasi/api.h>

int main(int argc, char** argv) {
  printf("before\n");
  fflush(stdout);
  __wasi_size_t written;
  if (argc > 1 && !strcmp(argv[1], "write")) {
    __wasi_ciovec_t far = {(const uint8_t*)0xfffff000u, 0x2000};
    (void)__wasi_fd_write(1, &far, 1, &written);
  } else if (argc > 1 && !strcmp(argv[1], "result")) {
    (void)__wasi_args_sizes_get((__wasi_size_t*)0xfffffffcu, &written);
  } else {
    (void)__wasi_fd_write(1, (const __wasi_ciovec_t*)0xfffffff8u, 4, &written);
  }
  printf("after\n");
  return 0;
}

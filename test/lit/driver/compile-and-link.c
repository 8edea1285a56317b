// -c builds objects, and a second call links them into a granule that exports
// _start and memory, keeps the function names (name section) even at -O2, and
// has been through the Synergy pass pipeline (the asyncify exports).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 -c -DPART_MAIN %s -o %t/main.o
// RUN: %synergy-cc -O2 -c %s -o %t/helper.o
// RUN: %synergy-cc -O2 %t/main.o %t/helper.o -o %t/app.wasm
// RUN: %wasm-dis %t/app.wasm | FileCheck %s
// CHECK-DAG: (export "memory" (memory
// CHECK-DAG: (export "_start" (func
// CHECK-DAG: (export "asyncify_start_unwind"
// CHECK-DAG: (func $scaled_sum_of_squares
//
// Objects and sources mix in one call, as with cc.
// RUN: %synergy-cc -O2 -DPART_MAIN %s %t/helper.o -o %t/mixed.wasm
// RUN: %wasm-dis %t/mixed.wasm | FileCheck %s
//
// Without -o the output is a.out, as with cc.
// RUN: cd %t && %synergy-cc %t/main.o %t/helper.o && %wasm-dis a.out | FileCheck %s
#include <stdio.h>

#ifdef PART_MAIN
int scaled_sum_of_squares(int n, int scale);

int main(void) {
  printf("%d\n", scaled_sum_of_squares(10, 3));
  return 0;
}
#else
__attribute__((noinline)) int scaled_sum_of_squares(int n, int scale) {
  int sum = 0;
  for (int i = 1; i <= n; ++i) sum += i * i;
  return sum * scale;
}
#endif

// The default pipeline on a linked C program that calls MPI: the census
// section names the MPI imports and their callers, Asyncify instruments the
// callers but not pure compute code, and wasm2c accepts the result. (This
// wasm-ld writes no name section, so functions are known by index; two are
// exported to find them.)
//
// RUN: clang-19 --target=wasm32-wasi --sysroot=/usr -O1 -Wl,--allow-undefined %s -o %t.wasm
// RUN: %synergy-opt --default-pipeline %t.wasm -o %t.out.wasm
// RUN: llvm-objcopy --dump-section synergy.control_points=%t.section %t.out.wasm
// RUN: FileCheck %s --check-prefix=SECTION --match-full-lines < %t.section
// RUN: %wasm-dis %t.out.wasm | FileCheck %s
// RUN: wasm2c %t.out.wasm -o %t.c

#include <stdio.h>

int MPI_Init(int* argc, char*** argv);
int MPI_Barrier(int comm);
int MPI_Finalize(void);

__attribute__((noinline, export_name("dot"))) long dot(const int* a, const int* b, int n) {
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += (long)a[i] * b[i];
  return sum;
}

__attribute__((noinline, export_name("synchronise"))) void synchronise(int rounds) {
  for (int i = 0; i < rounds; ++i) MPI_Barrier(0);
}

int main(int argc, char** argv) {
  static int a[64], b[64];
  MPI_Init(&argc, &argv);
  for (int i = 0; i < 64; ++i) a[i] = b[i] = i + argc;
  synchronise(2);
  printf("%ld\n", dot(a, b, 64));
  MPI_Barrier(0);
  return MPI_Finalize();
}

// SECTION:      synergy.control_points 1
// SECTION-DAG:  import env MPI_Init
// SECTION-DAG:  import env MPI_Barrier
// SECTION-DAG:  import env MPI_Finalize
// SECTION-DAG:  call [[MAIN:[0-9]+]] env MPI_Init 1
// SECTION-DAG:  call [[MAIN]] env MPI_Barrier 1
// SECTION-DAG:  call [[MAIN]] env MPI_Finalize 1
// SECTION-DAG:  call [[SYNC:[0-9]+]] env MPI_Barrier 1
// SECTION-NOT:  {{.}}

// CHECK:     (global $[[STATE:global\$[0-9]+]] (mut i32) (i32.const 0))
// CHECK-DAG: (export "dot" (func $[[DOT:[0-9]+]]))
// CHECK-DAG: (export "synchronise" (func $[[SYNC:[0-9]+]]))
// CHECK-DAG: (export "asyncify_start_unwind"
// CHECK:     (func $[[DOT]] (param
// CHECK-NOT: (global.get $[[STATE]])
// CHECK:     (func $[[SYNC]] (param
// CHECK:     (global.get $[[STATE]])

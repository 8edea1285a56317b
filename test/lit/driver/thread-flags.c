// -fopenmp and -pthread build a program that runs as thread granules over
// one memory: compile steps keep atomics real (-matomics; every build has
// the -mbulk-memory that thread-local storage needs too), and the link uses
// shared memory so TLS stays relative to __tls_base, and exports what the
// thread runtime calls. clang's own -pthread never reaches clang.
// Single-threaded builds get none of it.
// RUN: %synergy-cc -### -fopenmp -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=OMP-COMPILE
// OMP-COMPILE: "-mbulk-memory" "-matomics"
// OMP-COMPILE-SAME: "-fopenmp"
// RUN: %synergy-cc -v -pthread %s -o %t.wasm 2>&1 | FileCheck %s --check-prefix=PTHREAD-LINK
// PTHREAD-LINK-NOT: {{ }}-pthread
// PTHREAD-LINK: wasm-ld{{.*}} --shared-memory --no-check-features --max-memory=4294967296 --export=malloc --export=free --export=__wasm_init_tls --export=__tls_size --export=__tls_align
// RUN: %wasm-dis %t.wasm | FileCheck %s --check-prefix=MODULE
// MODULE-NOT: (memory {{.*}} shared
// MODULE-DAG: (import "synergy" "libc_lock_acquire"
// MODULE-DAG: (export "__synergy_malloc"
// MODULE-DAG: (export "__synergy_init_tls"
// RUN: %synergy-cc -### -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: "-matomics"
#include <pthread.h>
#include <stdlib.h>

static void* work(void* argument) { return malloc(16); }

int main(void) {
  pthread_t thread;
  void* result;
  pthread_create(&thread, 0, work, 0);
  pthread_join(thread, &result);
  free(result);
  return 0;
}

// The OpenMP and pthreads control points are listed from the host functions
// runtime/omp defines, like the MPI ones: a call to a pthread_*, omp_* or
// __kmpc_* function the runtime does not serve fails at link time with a
// message naming it and the source, and no module is written. (pthread_yield
// and pthread_attr_setguardsize were admitted by the hand-written list and
// trapped at run time with "call to unresolved import"; include/pthread.h
// does not declare them.) Served ones link,
// and the generated list holds exactly the functions the runtime defines.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -fopenmp -pthread %s -o %t/served.wasm
// RUN: %wasm-dis %t/served.wasm | FileCheck %s --check-prefix=SERVED
// SERVED-DAG: (import "env" "pthread_create"
// SERVED-DAG: (import "env" "omp_get_max_threads"
// SERVED-DAG: (import "env" "__kmpc_fork_call"
//
// RUN: not %synergy-cc -fopenmp -pthread -DUNSERVED %s -o %t/unserved.wasm 2>&1 | FileCheck %s --check-prefix=UNSERVED
// UNSERVED-DAG: synergy-cc: error: {{.*}}unserved-omp-call.c: pthread_yield is not supported by the Synergy runtime
// UNSERVED-DAG: synergy-cc: error: {{.*}}unserved-omp-call.c: pthread_attr_setguardsize is not supported by the Synergy runtime
// UNSERVED-DAG: synergy-cc: error: {{.*}}unserved-omp-call.c: omp_not_served is not supported by the Synergy runtime
// UNSERVED-DAG: synergy-cc: error: {{.*}}unserved-omp-call.c: __kmpc_not_served is not supported by the Synergy runtime
// UNSERVED-NOT: undefined symbol
// RUN: test ! -e %t/unserved.wasm
//
// The list: every OpenMP/pthreads name in it is a host function of the
// runtime, and every such host function is in it.
// RUN: grep -E '^(__kmpc_|omp_|pthread_)' %obj_root/share/synergy/control-points.syms | sort > %t/listed
// RUN: nm --defined-only --extern-only %obj_root/lib/libsynergy_omp.a | sed -n 's/^.* T Z_envZ_\(\(__kmpc_\|omp_\|pthread_\)[A-Za-z0-9_]*\)$/\1/p' | sort -u > %t/served
// RUN: diff %t/listed %t/served
// RUN: grep -c . %t/served | FileCheck %s --check-prefix=COUNT
// COUNT: {{[1-9][0-9][0-9]}}
#include <omp.h>
#include <pthread.h>
#include <stdio.h>

#ifdef UNSERVED
// include/pthread.h declares only what is served; a program may still
// declare the rest itself, as code written for glibc does.
int pthread_yield(void);
int pthread_attr_setguardsize(pthread_attr_t* attributes, size_t bytes);
int omp_not_served(void);
void __kmpc_not_served(void);
#endif

static void* work(void* argument) { return argument; }

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, work, NULL);
  pthread_join(thread, NULL);
#ifdef UNSERVED
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setguardsize(&attributes, 4096);
  pthread_yield();
  omp_not_served();
  __kmpc_not_served();
#endif
  int threads = 0;
#pragma omp parallel
#pragma omp single
  threads = omp_get_num_threads();
  printf("%d %d\n", threads > 0, omp_get_max_threads() > 0);
  return 0;
}

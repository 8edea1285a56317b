// --time-limit ends guests whose threads spin: every OpenMP team thread, or a
// pthread while the main thread waits in pthread_join (a host call), with
// threads sharing memory or on --dsm replicas. Only the first thread caught
// traps, so the report is printed once, and the process ends with status
// 134; the main thread never gets past the parallel region or the join.
// `timeout 120` only keeps a broken build from hanging the suite; no test
// checks how long anything took.
// RUN: %synergy-cc -O2 -fopenmp %s -o %t.wasm
// RUN: sh -c 'OMP_NUM_THREADS=3 timeout 120 %synergy-run --time-limit 0.3 %t.wasm team; echo "exit=$?"' > %t.team 2>&1
// RUN: FileCheck %s --implicit-check-not=trap --implicit-check-not=finished < %t.team
// RUN: sh -c 'OMP_NUM_THREADS=3 timeout 120 %synergy-run --dsm --time-limit 0.3 %t.wasm team; echo "exit=$?"' > %t.dsm-team 2>&1
// RUN: FileCheck %s --implicit-check-not=trap --implicit-check-not=finished < %t.dsm-team
// RUN: sh -c 'timeout 120 %synergy-run --time-limit 0.3 %t.wasm pthread; echo "exit=$?"' > %t.pthread 2>&1
// RUN: FileCheck %s --implicit-check-not=trap --implicit-check-not=finished < %t.pthread
// RUN: sh -c 'timeout 120 %synergy-run --dsm --time-limit 0.3 %t.wasm pthread; echo "exit=$?"' > %t.dsm-pthread 2>&1
// RUN: FileCheck %s --implicit-check-not=trap --implicit-check-not=finished < %t.dsm-pthread
// CHECK: started
// CHECK-NEXT: trap: time limit exceeded in spin
// CHECK-NEXT: exit=134
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

volatile unsigned counter;

__attribute__((noinline)) void spin(void) {
  for (;;) counter++;
}

static void* spin_in_thread(void* argument) {
  spin();
  return argument;
}

int main(int argc, char** argv) {
  printf("started\n");
  fflush(stdout);
  if (!strcmp(argv[1], "team")) {
#pragma omp parallel
    spin();
  } else {
    pthread_t thread;
    pthread_create(&thread, 0, spin_in_thread, 0);
    pthread_join(thread, 0);
  }
  printf("finished\n");
  return 0;
}

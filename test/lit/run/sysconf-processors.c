// sysconf(_SC_NPROCESSORS_ONLN) and _CONF in a granule agree with
// omp_get_num_procs() and with the host's own count (getconf, which asks the
// host's sysconf); wasi-libc alone answers 1.
// RUN: %synergy-cc -O2 -fopenmp %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: sh -c 'n=$(getconf _NPROCESSORS_ONLN); echo "onln=$n conf=$n omp=$n"' > %t.expected
// RUN: diff %t.expected %t.actual
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  printf("onln=%ld conf=%ld omp=%d\n", sysconf(_SC_NPROCESSORS_ONLN),
         sysconf(_SC_NPROCESSORS_CONF), omp_get_num_procs());
  return 0;
}

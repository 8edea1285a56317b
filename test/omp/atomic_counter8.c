// MODE: openmp
//===- atomic_counter8.c - one atomic counter hammered by eight threads ---===//
//
// num_threads(8) gives a team of eight whatever OMP_NUM_THREADS says. Each
// thread adds to one shared counter many times; a lost update shows as a
// short total. A second counter gets each thread's number added, so a
// wrong omp_get_thread_num or a missing thread shows too.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { INCREMENTS = 100000 };

int main(void) {
  int counter = 0;
  long long weighted = 0;
  int team = 0, ids_seen = 0;
#pragma omp parallel num_threads(8)
  {
    const int me = omp_get_thread_num();
#pragma omp master
    team = omp_get_num_threads();
    for (int i = 0; i < INCREMENTS; ++i) {
#pragma omp atomic
      counter += 1;
#pragma omp atomic
      weighted += me;
    }
#pragma omp atomic
    ids_seen |= 1 << me;
  }
  printf("team %d counter %d (expected %d)\n", team, counter, 8 * INCREMENTS);
  printf("weighted %lld (expected %lld) thread ids %02x\n", weighted, 28ll * INCREMENTS, ids_seen);
  return 0;
}

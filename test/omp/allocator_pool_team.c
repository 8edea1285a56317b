// MODE: openmp
//===- allocator_pool_team.c - one allocator's pool shared by a whole team -===//
//
// A pool is the allocator's, not a thread's: when every thread of a team
// asks a pool that holds one block, exactly one gets it, and once that one
// is freed the pool holds a block again. An allocator one thread creates
// inside the region is the same allocator for every other thread (its
// alignment trait holds for all of them) until one thread destroys it. With
// a team's threads spread over hosts these are the questions each host must
// put to one shared allocator table.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

enum { MAX_THREADS = 64, ROUNDS = 5 };

int main(void) {
  omp_alloctrait_t one_block[] = {{omp_atk_pool_size, 1000}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t pool = omp_init_allocator(omp_default_mem_space, 2, one_block);
  static omp_allocator_handle_t inner;
  static int aligned[MAX_THREADS], granted[ROUNDS], regranted[ROUNDS];
  int team = 0;
#pragma omp parallel
  {
    const int me = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    for (int round = 0; round < ROUNDS; ++round) {
      void *block = omp_alloc(600, pool);
      if (block) {
#pragma omp atomic
        granted[round] += 1;
      }
#pragma omp barrier
      omp_free(block, pool);
#pragma omp barrier
#pragma omp single
      {
        void *again = omp_alloc(600, pool);
        regranted[round] = again != NULL;
        omp_free(again, pool);
      }
    }
#pragma omp single
    {
      omp_alloctrait_t wide[] = {{omp_atk_alignment, 512}};
      inner = omp_init_allocator(omp_default_mem_space, 1, wide);
    }
    void *block = omp_alloc(64, inner);
    if (me < MAX_THREADS) aligned[me] = block != NULL && (uintptr_t)block % 512 == 0;
    omp_free(block, inner);
#pragma omp barrier
#pragma omp single
    omp_destroy_allocator(inner);
  }
  omp_destroy_allocator(pool);
  printf("team %d\n", team);
  for (int round = 0; round < ROUNDS; ++round)
    printf("round %d: %d of the team got the pool's block, alone afterwards %d\n", round,
           granted[round], regranted[round]);
  int all_aligned = 1;
  for (int t = 0; t < team && t < MAX_THREADS; ++t) all_aligned &= aligned[t];
  printf("an allocator made inside the region aligns for every thread: %d\n", all_aligned);
  printf("inner allocator valid %d\n", inner != omp_null_allocator);
  return 0;
}

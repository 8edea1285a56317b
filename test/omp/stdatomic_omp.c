// MODE: openmp
//===- stdatomic_omp.c - C11 <stdatomic.h> atomics inside OpenMP regions --===//
//
// fetch_add and fetch_sub counters, a compare-exchange maximum, an
// atomic_flag spinlock guarding a non-atomic two-field update, a 64-bit
// atomic, and release/acquire message passing between two threads where
// the reader spins until the writer's store becomes visible.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

enum { ROUNDS = 20000 };

static atomic_int counter;
static atomic_uint down = 1000000;
static atomic_llong wide;
static atomic_int maximum = -1;
static atomic_flag spin = ATOMIC_FLAG_INIT;
static long long guarded_a, guarded_b;
static int broken_invariant;
static int payload;
static atomic_int ready;

static void update_maximum(int value) {
  int seen = atomic_load(&maximum);
  while (value > seen && !atomic_compare_exchange_weak(&maximum, &seen, value)) {
  }
}

int main(void) {
#pragma omp parallel for schedule(dynamic, 64)
  for (int i = 0; i < ROUNDS; ++i) {
    atomic_fetch_add(&counter, 1);
    atomic_fetch_sub_explicit(&down, 3u, memory_order_relaxed);
    atomic_fetch_add(&wide, 5000000000ll);
    update_maximum((i * 7919) % 10007);
    while (atomic_flag_test_and_set_explicit(&spin, memory_order_acquire)) {
    }
    if (guarded_b != 2 * guarded_a)
      broken_invariant += 1;
    guarded_a += i;
    guarded_b += 2 * i;
    atomic_flag_clear_explicit(&spin, memory_order_release);
  }
  printf("counter %d down %u wide %lld max %d\n", atomic_load(&counter), atomic_load(&down),
         atomic_load(&wide), atomic_load(&maximum));
  printf("guarded %lld %lld broken invariant %d\n", guarded_a, guarded_b, broken_invariant);

  int received = -1;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() == 2) {
      if (omp_get_thread_num() == 0) {
        payload = 4242;
        atomic_store_explicit(&ready, 1, memory_order_release);
      } else {
        while (!atomic_load_explicit(&ready, memory_order_acquire)) {
        }
        received = payload;
      }
    }
  }
  printf("message %d\n", received);
  return 0;
}

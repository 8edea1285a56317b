// MODE: openmp
//===- atomic.c - omp atomic update, read, write and capture on scalars ---===//
//
// Every form of `omp atomic` on int, unsigned, long long, float and double.
// Capture hands out tickets: each value must be handed out exactly once,
// which fails if capture is not one indivisible read-modify-write. Floating
// updates add exactly representable values, so their totals are exact.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 5000 };

int main(void) {
  int counter = 0, decrement = 0;
  unsigned mask_or = 0, mask_and = ~0u, mask_xor = 0, scaled = 1;
  long long wide = 0;
  float float_sum = 0.0f;
  double double_sum = 0.0, double_product = 1.0;
  int next_ticket = 0;
  unsigned char *taken = calloc(ROUNDS, 1);
  int flag = 0;

#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < ROUNDS; ++i) {
#pragma omp atomic
    counter++;
#pragma omp atomic update
    decrement -= 2;
#pragma omp atomic
    mask_or |= 1u << (i % 32);
#pragma omp atomic
    mask_and &= ~(1u << (i % 31));
#pragma omp atomic
    mask_xor ^= (unsigned)i * 2654435761u;
    if (i % 1000 == 0) {
#pragma omp atomic
      scaled *= 3u;
    }
#pragma omp atomic
    wide += 3000000001ll;
#pragma omp atomic
    float_sum += 0.5f;
#pragma omp atomic
    double_sum += (double)(i % 7) * 0.25;
    if (i % 500 == 0) {
#pragma omp atomic
      double_product *= 2.0;
    }
    int ticket;
#pragma omp atomic capture
    ticket = next_ticket++;
    if (ticket >= 0 && ticket < ROUNDS)
      taken[ticket] += 1;
  }
  int once = 1;
  for (int t = 0; t < ROUNDS; ++t)
    once &= taken[t] == 1;
  free(taken);
  printf("counter %d decrement %d\n", counter, decrement);
  printf("or %08x and %08x xor %08x scaled %u\n", mask_or, mask_and, mask_xor, scaled);
  printf("wide %lld\n", wide);
  printf("float sum %.1f double sum %.2f double product %.1f\n", (double)float_sum, double_sum,
         double_product);
  printf("tickets %d each once %s\n", next_ticket, once ? "yes" : "no");

  // Other capture forms: value before and after the update.
  int before_sum = 0, after_sum = 0, value = 100;
#pragma omp parallel for reduction(+ : before_sum, after_sum)
  for (int i = 0; i < 100; ++i) {
    int before, after;
#pragma omp atomic capture
    {
      before = value;
      value += i;
    }
#pragma omp atomic capture
    after = value -= i;
    before_sum += before >= 100;
    after_sum += after >= 100;
  }
  printf("capture value %d before>=100 %d after>=100 %d\n", value, before_sum, after_sum);

  // Atomic write publishes, atomic read observes; the barrier orders them.
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) {
#pragma omp atomic write
      flag = 42;
    }
#pragma omp barrier
    int seen;
#pragma omp atomic read
    seen = flag;
    if (seen != 42) {
#pragma omp atomic write
      flag = -1;
    }
  }
  printf("flag %d\n", flag);
  return 0;
}

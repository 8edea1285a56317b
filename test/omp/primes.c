// MODE: openmp
//===- primes.c - prime counting with uneven work per iteration -----------===//
//
// Trial division costs more for larger numbers, so a dynamic schedule
// balances it; a segmented sieve gives each iteration its own segment of a
// shared flag array. Counts, sums, the largest prime (a max reduction) and
// twin-prime pairs are printed; all are integers and order-free.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <string.h>

enum { LIMIT = 60000, SIEVE_LIMIT = 1000000, SEGMENT = 8192 };

static unsigned char composite[SIEVE_LIMIT];
static int small_primes[1024];

static int is_prime(int n) {
  if (n < 2)
    return 0;
  for (int d = 2; d * d <= n; ++d)
    if (n % d == 0)
      return 0;
  return 1;
}

int main(void) {
  int count = 0, largest = 0, twins = 0;
  long long sum = 0;
#pragma omp parallel for schedule(dynamic, 97) reduction(+ : count, sum, twins) reduction(max : largest)
  for (int n = 0; n < LIMIT; ++n) {
    if (is_prime(n)) {
      count += 1;
      sum += n;
      largest = n > largest ? n : largest;
      twins += is_prime(n + 2);
    }
  }
  printf("trial division below %d: %d primes, sum %lld, largest %d, twin pairs %d\n", LIMIT, count,
         sum, largest, twins);

  int small_count = 0;
  for (int p = 2; p * p < SIEVE_LIMIT; ++p)
    if (is_prime(p))
      small_primes[small_count++] = p;
  memset(composite, 0, sizeof composite);
  composite[0] = composite[1] = 1;
  const int segments = (SIEVE_LIMIT + SEGMENT - 1) / SEGMENT;
#pragma omp parallel for schedule(guided)
  for (int s = 0; s < segments; ++s) {
    const int low = s * SEGMENT;
    const int high = low + SEGMENT < SIEVE_LIMIT ? low + SEGMENT : SIEVE_LIMIT;
    for (int k = 0; k < small_count; ++k) {
      const int p = small_primes[k];
      int start = (low + p - 1) / p * p;
      if (start < p * p)
        start = p * p;
      for (int m = start; m < high; m += p)
        composite[m] = 1;
    }
  }
  int sieve_count = 0;
  long long sieve_sum = 0;
#pragma omp parallel for reduction(+ : sieve_count, sieve_sum)
  for (int n = 0; n < SIEVE_LIMIT; ++n)
    if (!composite[n]) {
      sieve_count += 1;
      sieve_sum += n;
    }
  printf("segmented sieve below %d: %d primes, sum %lld\n", SIEVE_LIMIT, sieve_count, sieve_sum);
  return 0;
}

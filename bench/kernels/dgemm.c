/*===- dgemm.c - dense double-precision matrix multiply --------------------===*
 *
 * C = A * B for square n x n row-major matrices, in i-k-j order so the
 * inner loop streams rows of B and C and auto-vectorizes on both targets.
 * This is the kernel the design's memory-base hoisting was measured on:
 * without the hoist every load reloads the wasm memory base and the granule
 * runs ~3x native. Each C[i][j] accumulates over k in the same order on both
 * sides, so with -ffp-contract=off the result is bit-identical.
 *
 * Usage: dgemm [n]   (default n = 1500)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { BAND_ROWS = 50 };

/* Rows [first, last) of C; every row costs the same n * n multiply-adds, so
 * a band of rows is a timing round of (last - first) units. */
static void multiply_rows(long n, long first, long last, const double *restrict a,
                          const double *restrict b, double *restrict c) {
  for (long i = first; i < last; ++i) {
    double *restrict c_row = c + i * n;
    for (long j = 0; j < n; ++j)
      c_row[j] = 0.0;
    for (long k = 0; k < n; ++k) {
      const double a_ik = a[i * n + k];
      const double *restrict b_row = b + k * n;
      for (long j = 0; j < n; ++j)
        c_row[j] += a_ik * b_row[j];
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1500);
  const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  double *a = kernel_alloc(bytes);
  double *b = kernel_alloc(bytes);
  double *c = kernel_alloc(bytes);

  KernelRng rng = {42};
  for (long i = 0; i < n * n; ++i)
    a[i] = kernel_rng_unit(&rng) - 0.5;
  for (long i = 0; i < n * n; ++i)
    b[i] = kernel_rng_unit(&rng) - 0.5;
  memset(c, 0, bytes);

  KernelTimer timer = kernel_timer_start();
  for (long first = 0; first < n; first += BAND_ROWS) {
    const long last = first + BAND_ROWS < n ? first + BAND_ROWS : n;
    multiply_rows(n, first, last, a, b, c);
    kernel_round_end(&timer, last - first);
  }

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, c, bytes);
  printf("kernel dgemm n=%ld\n", n);
  kernel_report(&sum, &timer);
  free(a);
  free(b);
  free(c);
  return 0;
}

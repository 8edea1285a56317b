// MODE: openmp
//===- dgemm.c - dense matrix multiply, the Faabric evaluation kernel -----===//
//
// C = A * B on odd-sized matrices, three ways: rows split by a static
// schedule, rows by a dynamic schedule, and the two outer loops collapsed.
// The entries are small integers, so every product and every partial sum is
// an exactly representable double and all three results, and the serial
// one, must be bit-identical.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { N = 97 };

static double a[N][N], b[N][N], c[N][N], reference[N][N];

static uint64_t fnv1a(const void *data, size_t size) {
  const unsigned char *bytes = data;
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

static void report(const char *how) {
  double trace = 0.0;
  for (int i = 0; i < N; ++i)
    trace += c[i][i];
  printf("%-9s trace %.1f checksum %016llx matches serial %s\n", how, trace,
         (unsigned long long)fnv1a(c, sizeof c), memcmp(c, reference, sizeof c) == 0 ? "yes" : "no");
}

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      a[i][j] = (double)((i + 2 * j) % 7 - 3);
      b[i][j] = (double)((3 * i + j) % 5 - 2);
    }
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j)
        reference[i][j] += a[i][k] * b[k][j];

  memset(c, 0, sizeof c);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j)
        c[i][j] += a[i][k] * b[k][j];
  report("static");

  memset(c, 0, sizeof c);
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j)
        c[i][j] += a[i][k] * b[k][j];
  report("dynamic");

#pragma omp parallel for collapse(2) schedule(static, 5)
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0.0;
      for (int k = 0; k < N; ++k)
        sum += a[i][k] * b[k][j];
      c[i][j] = sum;
    }
  report("collapsed");
  return 0;
}

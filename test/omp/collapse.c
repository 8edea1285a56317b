// MODE: openmp
//===- collapse.c - collapse(2) over odd, strided and triangular-free nests ===//
//
// The collapsed iteration space is linearised row-major; with
// schedule(static, c) the spec fixes each linear iteration's owner, with
// dynamic only that each runs once. The nests have odd extents, negative
// strides and an empty inner loop, so the runtime's trip-count arithmetic
// sees every corner.
//
//===----------------------------------------------------------------------===//
#include "loop_check.h"

int main(void) {
  int failures = 0;
  static const int shapes[][2] = {{1, 1}, {3, 5}, {7, 13}, {31, 33}, {5, 0}, {0, 9}};
  for (unsigned s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
    const int rows = shapes[s][0], cols = shapes[s][1];
    printf("shape %d x %d\n", rows, cols);
    long long sum = 0;

    loop_begin();
#pragma omp parallel for collapse(2) schedule(static, 2) reduction(+ : sum)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        record((long long)i * cols + j);
        sum += i * 1000 + j;
      }
    failures += !report("static,2", rows * cols, ROUND_ROBIN, 2);
    printf("  sum %lld\n", sum);
    if (rows * cols == 15)
      print_owners(15);

    loop_begin();
    sum = 0;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : sum)
    for (int i = rows - 1; i >= 0; --i)
      for (int j = 3 * cols; j > 0; j -= 3) {
        record((long long)(rows - 1 - i) * cols + (3 * cols - j) / 3);
        sum += (long long)i * j;
      }
    failures += !report("static down", rows * cols, CONTIGUOUS, 0);
    printf("  sum %lld\n", sum);

    loop_begin();
    sum = 0;
#pragma omp parallel for collapse(2) schedule(dynamic, 3) reduction(+ : sum)
    for (long long i = 5000000000ll; i < 5000000000ll + rows; ++i)
      for (unsigned j = 0; j < (unsigned)cols; ++j) {
        record((i - 5000000000ll) * cols + j);
        sum += (i - 5000000000ll) ^ j;
      }
    failures += !report("dynamic,3 mixed types", rows * cols, WHOLE_CHUNKS, 3);
    printf("  sum %lld\n", sum);
  }
  printf("failures %d\n", failures);
  return failures != 0;
}

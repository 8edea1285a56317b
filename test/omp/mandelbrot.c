// MODE: openmp
//===- mandelbrot.c - per-pixel escape counts under a dynamic schedule ----===//
//
// Rows near the set cost far more than rows outside it, which is what a
// dynamic schedule is for. Each pixel's count depends only on its own
// coordinates, computed with the same IEEE operations on every target, so
// the image is exact; a coarse ASCII rendering and a checksum are printed.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

enum { WIDTH = 240, HEIGHT = 120, MAX_ITERATIONS = 400 };

static unsigned short counts[HEIGHT][WIDTH];

int main(void) {
  long long total = 0;
#pragma omp parallel for schedule(dynamic, 2) reduction(+ : total)
  for (int row = 0; row < HEIGHT; ++row) {
    const double ci = -1.2 + 2.4 * row / (HEIGHT - 1);
    for (int col = 0; col < WIDTH; ++col) {
      const double cr = -2.2 + 3.2 * col / (WIDTH - 1);
      double zr = 0.0, zi = 0.0;
      int n = 0;
      while (n < MAX_ITERATIONS && zr * zr + zi * zi <= 4.0) {
        const double t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        ++n;
      }
      counts[row][col] = (unsigned short)n;
      total += n;
    }
  }
  uint64_t hash = 0xcbf29ce484222325ull;
  for (int row = 0; row < HEIGHT; ++row)
    for (int col = 0; col < WIDTH; ++col) {
      hash ^= counts[row][col];
      hash *= 0x100000001b3ull;
    }
  printf("total iterations %lld checksum %016llx\n", total, (unsigned long long)hash);
  static const char shades[] = " .:-=+*#%@";
  static const int thresholds[] = {3, 5, 7, 10, 14, 20, 40, 100, MAX_ITERATIONS};
  for (int row = 0; row < HEIGHT; row += 8) {
    for (int col = 0; col < WIDTH; col += 4) {
      int shade = 0;
      while (shade < 9 && counts[row][col] >= thresholds[shade])
        ++shade;
      putchar(shades[shade]);
    }
    putchar('\n');
  }
  return 0;
}

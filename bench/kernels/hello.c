/*===- hello.c - the smallest granule, for start-up latency ----------------===*
 *
 * bench/run-kernels.py times this whole process under synergy-run twice: once
 * with an empty AOT cache (cold start: wasm2c, the post-pass and the native
 * compile all included) and once more with the cache filled (warm start);
 * bench/warm-start.py times many warm starts against native runs of it.
 *
 *===----------------------------------------------------------------------===*/
#include <stdio.h>

int main(void) {
  puts("hello from a granule");
  return 0;
}

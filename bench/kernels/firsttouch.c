/*===- firsttouch.c - filling and scanning a large fresh array -------------===*
 *
 * Allocates a large array of 64-bit words (512 MiB by default), writes every
 * word once and then reads it back twice. Nearly all of the cost is the
 * first touch of each page: page faults and zeroing by the kernel, so this
 * kernel measures how the granule's linear memory is backed, not code
 * generation. Unlike the other kernels, its timed loop includes the first
 * touch on purpose.
 *
 * Usage: firsttouch [mib]   (default 512 MiB)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

int main(int argc, char **argv) {
  const long mib = kernel_size_arg(argc, argv, 512);
  const long count = mib * (1024 * 1024 / (long)sizeof(uint64_t));
  /* Timed from before the allocation: the faults are what is measured. */
  KernelTimer timer = kernel_timer_start();
  uint64_t *words = kernel_alloc(count * sizeof(uint64_t));
  for (long i = 0; i < count; ++i)
    words[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull;
  kernel_round_end(&timer, 1);
  uint64_t folded = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (long i = 0; i < count; ++i)
      folded = (folded ^ words[i]) + (uint64_t)pass;
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_u64(&sum, folded);
  printf("kernel firsttouch mib=%ld\n", mib);
  kernel_report(&sum, &timer);
  return 0;
}

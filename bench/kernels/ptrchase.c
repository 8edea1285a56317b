/*===- ptrchase.c - following a random cyclic linked list ------------------===*
 *
 * Builds a single random cycle through n nodes (Sattolo's shuffle) and
 * follows it for many steps, summing a payload. Each load's address comes
 * from the previous load, so the kernel measures load latency plus
 * whatever address arithmetic the granule adds to an index-based pointer.
 *
 * Usage: ptrchase [n]   (default n = 2000000 nodes, 4000000 steps)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { STEPS_PER_ROUND = 1000000, ROUNDS = 4 };

typedef struct Node {
  struct Node *next;
  uint64_t payload;
} Node;

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 2000000);
  Node *nodes = kernel_alloc(n * sizeof(Node));
  uint32_t *order = kernel_alloc(n * sizeof(uint32_t));
  KernelRng rng = {132};
  for (long i = 0; i < n; ++i)
    order[i] = (uint32_t)i;
  for (long i = n - 1; i > 0; --i) {
    const long j = kernel_rng_below(&rng, (uint32_t)i);
    const uint32_t swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  for (long i = 0; i < n; ++i) {
    nodes[order[i]].next = &nodes[order[(i + 1) % n]];
    nodes[order[i]].payload = kernel_rng_next(&rng);
  }

  uint64_t total = 0;
  const Node *at = &nodes[0];
  KernelTimer timer = kernel_timer_start();
  for (int r = 0; r < ROUNDS; ++r) {
    for (long s = 0; s < STEPS_PER_ROUND; ++s) {
      total += at->payload;
      at = at->next;
    }
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_u64(&sum, total);
  kernel_checksum_u64(&sum, (uint64_t)(at - nodes));
  printf("kernel ptrchase n=%ld steps=%ld\n", n, (long)STEPS_PER_ROUND * ROUNDS);
  kernel_report(&sum, &timer);
  return 0;
}

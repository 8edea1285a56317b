// MODE: openmp
//===- critical.c - unnamed and named critical sections -------------------===//
//
// Read-modify-write sequences that are wrong unless the critical section
// excludes other threads: a non-atomic multi-word update (a 128-bit counter
// kept in two 64-bit halves), a shared linked stack, and two independent
// named sections that protect different data. The named sections only
// exclude each other per name, so they also run concurrently without harm.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { ITEMS = 4000 };

typedef struct Node {
  int value;
  struct Node *next;
} Node;

static Node nodes[ITEMS];

int main(void) {
  unsigned long long low = 0, high = 0;
  Node *stack = NULL;
  long long even_sum = 0, odd_sum = 0;
  int even_count = 0, odd_count = 0;

#pragma omp parallel for schedule(dynamic, 7)
  for (int i = 0; i < ITEMS; ++i) {
#pragma omp critical
    {
      // A carry across two words: torn if two threads interleave.
      unsigned long long before = low;
      low += 0x4000000000000001ull;
      if (low < before)
        high += 1;
    }
#pragma omp critical
    {
      nodes[i].value = i;
      nodes[i].next = stack;
      stack = &nodes[i];
    }
    if (i % 2 == 0) {
#pragma omp critical(evens)
      {
        even_sum += i;
        even_count += 1;
      }
    } else {
#pragma omp critical(odds)
      {
        odd_sum += i;
        odd_count += 1;
      }
    }
  }

  int length = 0;
  long long stack_sum = 0;
  char *seen = calloc(ITEMS, 1);
  int duplicates = 0;
  for (Node *n = stack; n; n = n->next) {
    length += 1;
    stack_sum += n->value;
    duplicates += seen[n->value];
    seen[n->value] = 1;
  }
  free(seen);
  printf("counter high %llu low %llu\n", high, low);
  printf("stack length %d sum %lld duplicates %d\n", length, stack_sum, duplicates);
  printf("evens %d sum %lld odds %d sum %lld\n", even_count, even_sum, odd_count, odd_sum);

  // Critical inside a bare parallel region: each thread appends its number
  // once; the sorted list is then the team.
  int members[64], count = 0;
#pragma omp parallel
  {
#pragma omp critical(members)
    if (count < 64)
      members[count++] = omp_get_thread_num();
  }
  for (int a = 1; a < count; ++a)
    for (int b = a; b > 0 && members[b - 1] > members[b]; --b) {
      int t = members[b];
      members[b] = members[b - 1];
      members[b - 1] = t;
    }
  printf("team");
  for (int a = 0; a < count; ++a)
    printf(" %d", members[a]);
  printf("\n");
  return 0;
}

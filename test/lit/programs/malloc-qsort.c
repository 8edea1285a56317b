// Differential: a malloc-heavy program with qsort gives the same output as a
// granule and as a native executable.
// RUN: %host-clang -O2 %s -o %t.native && %t.native > %t.expected
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// CHECK: lists: 2000 nodes: 200000
// CHECK: sorted: ok
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Node {
  struct Node* next;
  unsigned value;
  char label[12];
};

static int compareUnsigned(const void* a, const void* b) {
  unsigned x = *(const unsigned*)a, y = *(const unsigned*)b;
  return (x > y) - (x < y);
}

int main(void) {
  enum { kLists = 2000, kPerList = 100 };
  struct Node** heads = calloc(kLists, sizeof *heads);
  unsigned state = 2463534242u;
  size_t nodes = 0;
  for (int round = 0; round < kPerList; ++round) {
    for (int l = 0; l < kLists; ++l) {
      state ^= state << 13, state ^= state >> 17, state ^= state << 5;
      struct Node* n = malloc(sizeof *n + (state & 63));  // varied sizes
      n->value = state;
      snprintf(n->label, sizeof n->label, "n%u", state % 100000);
      n->next = heads[l];
      heads[l] = n;
      ++nodes;
    }
    // Free and reallocate every third list's head to churn the allocator.
    for (int l = 0; l < kLists; l += 3) {
      struct Node* n = heads[l];
      heads[l] = n->next;
      struct Node* again = realloc(n, sizeof *n + 200);
      again->next = heads[l];
      heads[l] = again;
    }
  }
  unsigned* values = malloc(nodes * sizeof *values);
  size_t count = 0;
  unsigned long long labelSum = 0;
  for (int l = 0; l < kLists; ++l) {
    for (struct Node* n = heads[l]; n;) {
      struct Node* next = n->next;
      values[count++] = n->value;
      labelSum += strlen(n->label);
      free(n);
      n = next;
    }
  }
  qsort(values, count, sizeof *values, compareUnsigned);
  int sorted = 1;
  unsigned long long checksum = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i && values[i - 1] > values[i]) sorted = 0;
    checksum = checksum * 31 + values[i];
  }
  printf("lists: %d nodes: %zu\n", kLists, count);
  printf("sorted: %s\n", sorted ? "ok" : "BROKEN");
  printf("checksum: %llu labels: %llu median: %u\n", checksum, labelSum, values[count / 2]);
  free(values);
  free(heads);
  return 0;
}

// MODE: openmp
//===- reduction_llong.c - every reduction operator on long long ----------===//
//
// The values reach beyond 32 bits so a runtime that combines through a
// 32-bit slot, or a DSM merge that adds only the low word, is caught.
//
//===----------------------------------------------------------------------===//
#include <limits.h>

typedef long long value_t;
#define HAS_BIT_OPS 1
#define VALUE_LOWEST LLONG_MIN
#define VALUE_HIGHEST LLONG_MAX

static value_t make_value(int i) { return ((i * 13) % 21 - 10) * 3000000000ll + (i % 3 == 0 ? 10 : 0); }
static value_t make_factor(int i) { return i % 37 == 5 ? 4 : i % 89 == 3 ? -1 : 1; }
static value_t make_mask(int i) {
  return (long long)(((unsigned long long)i * 0x9e3779b97f4a7c15ull) | 0x1000000100000101ull);
}

#include <stdio.h>
static void print_value(const char *what, value_t value) { printf("%s %lld\n", what, value); }

#include "reduction_body.h"

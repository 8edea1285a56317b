// MODE: openmp
//===- reduction_int.c - every reduction operator on int ------------------===//
//
// Factors are mostly 1 with a few 2s and -1s, so the product stays far from
// overflow (signed overflow would be undefined) and is the same in any order.
//
//===----------------------------------------------------------------------===//
#include <limits.h>

typedef int value_t;
#define HAS_BIT_OPS 1
#define VALUE_LOWEST INT_MIN
#define VALUE_HIGHEST INT_MAX

static value_t make_value(int i) { return (i * 13) % 21 - 10; }
static value_t make_factor(int i) { return i % 97 == 5 ? 2 : i % 89 == 3 ? -1 : 1; }
static value_t make_mask(int i) { return (int)(((unsigned)i * 2654435761u) | 0x10000101u); }

#include <stdio.h>
static void print_value(const char *what, value_t value) { printf("%s %d\n", what, value); }

#include "reduction_body.h"

// MODE: openmp
//===- reduction_unsigned.c - every reduction operator on unsigned --------===//
//
// Unsigned arithmetic wraps modulo 2^32, which keeps + and * commutative
// and associative even when they overflow, so the factors can be large odd
// numbers and the product still has one right answer.
//
//===----------------------------------------------------------------------===//
#include <limits.h>

typedef unsigned value_t;
#define HAS_BIT_OPS 1
#define VALUE_LOWEST 0u
#define VALUE_HIGHEST UINT_MAX

static value_t make_value(int i) { return (unsigned)i * 2246822519u % 1000003u + (i % 50 == 7 ? 10u : 0u); }
static value_t make_factor(int i) { return (unsigned)i * 2u * 3266489917u + 1u; }
static value_t make_mask(int i) { return ((unsigned)i * 2654435761u) | 0x10000101u; }

#include <stdio.h>
static void print_value(const char *what, value_t value) { printf("%s %u\n", what, value); }

#include "reduction_body.h"

// MODE: openmp
//===- reduction_double.c - the reduction operators legal on double -------===//
//
// Dyadic values well inside double's 53-bit mantissa: every order of
// combining gives the same bits.
//
//===----------------------------------------------------------------------===//
#include <float.h>

typedef double value_t;
#define HAS_BIT_OPS 0
#define VALUE_LOWEST (-DBL_MAX)
#define VALUE_HIGHEST DBL_MAX

static value_t make_value(int i) { return (double)((i * 13) % 21 - 10) * 1048576.0 + (i % 8 == 3 ? 0.125 : 0.0); }
static value_t make_factor(int i) { return i % 31 == 5 ? 2.0 : i % 89 == 3 ? -1.0 : i % 41 == 7 ? 0.25 : 1.0; }

#include <stdio.h>
static void print_value(const char *what, value_t value) { printf("%s %.17g\n", what, value); }

#include "reduction_body.h"

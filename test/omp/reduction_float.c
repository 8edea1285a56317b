// MODE: openmp
//===- reduction_float.c - the reduction operators legal on float ---------===//
//
// Values are small integers and factors powers of two or -1, so sums and
// products are exact in single precision whatever the combining order.
//
//===----------------------------------------------------------------------===//
#include <float.h>

typedef float value_t;
#define HAS_BIT_OPS 0
#define VALUE_LOWEST (-FLT_MAX)
#define VALUE_HIGHEST FLT_MAX

static value_t make_value(int i) { return (float)((i * 13) % 21 - 10) + (i % 4 == 1 ? 0.25f : 0.0f); }
static value_t make_factor(int i) { return i % 97 == 5 ? 2.0f : i % 89 == 3 ? -1.0f : i % 101 == 7 ? 0.5f : 1.0f; }

#include <stdio.h>
static void print_value(const char *what, value_t value) { printf("%s %.9g\n", what, (double)value); }

#include "reduction_body.h"

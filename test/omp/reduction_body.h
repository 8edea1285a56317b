//===- reduction_body.h - every reduction operator on one element type ----===//
//
// Shared by reduction_<type>.c. The including file defines value_t,
// make_value/make_factor (and make_mask when HAS_BIT_OPS), VALUE_LOWEST,
// VALUE_HIGHEST and print_value, then includes this. Each operator is run
// over several trip counts (empty, one, short odd, long odd) starting from a
// non-identity value, so the original value must be folded in exactly once.
// The inputs keep every product and partial sum exact for the type, so the
// result does not depend on the order in which threads combine.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { LENGTH = 1001 };

static value_t values[LENGTH];
static value_t factors[LENGTH];
#if HAS_BIT_OPS
static value_t masks[LENGTH];
#endif

static void reduce_over(int count) {
  value_t sum = 100, product = 3, difference = 7;
  value_t lowest = VALUE_HIGHEST, highest = VALUE_LOWEST;
  value_t all_in_range = 1, all_positive = 1, any_ten = 0, any_huge = 0;
#pragma omp parallel for reduction(+ : sum) reduction(* : product) reduction(- : difference)
  for (int i = 0; i < count; ++i) {
    sum += values[i];
    product *= factors[i];
    difference -= values[i];
  }
#pragma omp parallel for reduction(min : lowest) reduction(max : highest)
  for (int i = 0; i < count; ++i) {
    lowest = values[i] < lowest ? values[i] : lowest;
    highest = values[i] > highest ? values[i] : highest;
  }
#pragma omp parallel for reduction(&& : all_in_range, all_positive) reduction(|| : any_ten, any_huge)
  for (int i = 0; i < count; ++i) {
    all_in_range = all_in_range && values[i] <= VALUE_HIGHEST;
    all_positive = all_positive && values[i] > 0;
    any_ten = any_ten || values[i] == 10;
    any_huge = any_huge || values[i] == VALUE_HIGHEST;
  }
  printf("trip count %d\n", count);
  print_value("  +", sum);
  print_value("  *", product);
  print_value("  -", difference);
  print_value("  min", lowest);
  print_value("  max", highest);
  print_value("  && in range", all_in_range);
  print_value("  && positive", all_positive);
  print_value("  || ten", any_ten);
  print_value("  || huge", any_huge);
#if HAS_BIT_OPS
  value_t bit_and = (value_t)~(value_t)0, bit_or = 0x40, bit_xor = 0x5a;
#pragma omp parallel for reduction(& : bit_and) reduction(| : bit_or) reduction(^ : bit_xor)
  for (int i = 0; i < count; ++i) {
    bit_and &= masks[i];
    bit_or |= masks[i] & 0x0f0f0f0f;
    bit_xor ^= masks[i];
  }
  print_value("  &", bit_and);
  print_value("  |", bit_or);
  print_value("  ^", bit_xor);
#endif
}

int main(void) {
  for (int i = 0; i < LENGTH; ++i) {
    values[i] = make_value(i);
    factors[i] = make_factor(i);
#if HAS_BIT_OPS
    masks[i] = make_mask(i);
#endif
  }
  static const int counts[] = {0, 1, 7, LENGTH};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c)
    reduce_over(counts[c]);

  // A reduction on a bare parallel region: one contribution per thread.
  value_t per_thread = 0;
  int threads = 0;
#pragma omp parallel reduction(+ : per_thread, threads)
  {
    per_thread += make_value(omp_get_thread_num() + 1);
    threads += 1;
  }
  printf("threads %d\n", threads);
  print_value("per-thread +", per_thread);
  return 0;
}

/*===- spmv.c - sparse matrix-vector product in CSR form -------------------===*
 *
 * Repeats x <- A*x + b for a sparse n x n matrix in compressed sparse row
 * form. Each row holds its diagonal, a few near-diagonal entries and a few
 * random far columns, so the kernel mixes streaming loads (values, column
 * indices) with data-dependent gathers from x. The gathers make it the
 * kernel most sensitive to address computation: every x[col[k]] turns a
 * 32-bit index into a guest address. Row sums stay below one, so the
 * iteration is a contraction that never reaches denormals; each row sums
 * its entries in storage order, so the result matches bit for bit.
 *
 * Usage: spmv [n]   (default n = 600000, 16 entries a row, 60 iterations)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { ENTRIES_PER_ROW = 16, NEAR_ENTRIES = 8, ITERATIONS = 60 };

typedef struct {
  long rows;
  uint32_t *row_start; /* rows + 1 offsets into column/value */
  uint32_t *column;
  double *value;
} CsrMatrix;

static void sort_columns(uint32_t *columns, int count) {
  for (int i = 1; i < count; ++i) {
    uint32_t key = columns[i];
    int j = i - 1;
    while (j >= 0 && columns[j] > key) {
      columns[j + 1] = columns[j];
      --j;
    }
    columns[j + 1] = key;
  }
}

static CsrMatrix build_matrix(long n, KernelRng *rng) {
  CsrMatrix m;
  const size_t entries = (size_t)n * ENTRIES_PER_ROW;
  m.rows = n;
  m.row_start = kernel_alloc((size_t)(n + 1) * sizeof(uint32_t));
  m.column = kernel_alloc(entries * sizeof(uint32_t));
  m.value = kernel_alloc(entries * sizeof(double));
  for (long r = 0; r < n; ++r) {
    uint32_t *cols = m.column + r * ENTRIES_PER_ROW;
    m.row_start[r] = (uint32_t)(r * ENTRIES_PER_ROW);
    cols[0] = (uint32_t)r;
    for (int k = 1; k < NEAR_ENTRIES; ++k) {
      long c = r + (long)kernel_rng_below(rng, 64) - 32;
      cols[k] = (uint32_t)(c < 0 ? 0 : (c >= n ? n - 1 : c));
    }
    for (int k = NEAR_ENTRIES; k < ENTRIES_PER_ROW; ++k)
      cols[k] = kernel_rng_below(rng, (uint32_t)n);
    sort_columns(cols, ENTRIES_PER_ROW);
    for (int k = 0; k < ENTRIES_PER_ROW; ++k)
      m.value[r * ENTRIES_PER_ROW + k] = kernel_rng_unit(rng) * (0.9 / ENTRIES_PER_ROW);
  }
  m.row_start[n] = (uint32_t)entries;
  return m;
}

static void multiply_add(const CsrMatrix *m, const double *restrict x, const double *restrict b,
                         double *restrict y) {
  const uint32_t *restrict row_start = m->row_start;
  const uint32_t *restrict column = m->column;
  const double *restrict value = m->value;
  for (long r = 0; r < m->rows; ++r) {
    double acc = 0.0;
    for (uint32_t k = row_start[r]; k < row_start[r + 1]; ++k)
      acc += value[k] * x[column[k]];
    y[r] = acc + b[r];
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 600000);
  KernelRng rng = {99};
  CsrMatrix m = build_matrix(n, &rng);
  const size_t bytes = (size_t)n * sizeof(double);
  double *x = kernel_alloc(bytes);
  double *y = kernel_alloc(bytes);
  double *b = kernel_alloc(bytes);
  for (long i = 0; i < n; ++i) {
    x[i] = kernel_rng_unit(&rng);
    b[i] = kernel_rng_unit(&rng);
  }

  KernelTimer timer = kernel_timer_start();
  for (int it = 0; it < ITERATIONS; ++it) {
    multiply_add(&m, x, b, y);
    double *swap = x;
    x = y;
    y = swap;
    kernel_round_end(&timer, 1);
  }

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, x, bytes);
  printf("kernel spmv n=%ld entries_per_row=%d iterations=%d\n", n, ENTRIES_PER_ROW, ITERATIONS);
  kernel_report(&sum, &timer);
  free(m.row_start);
  free(m.column);
  free(m.value);
  free(x);
  free(y);
  free(b);
  return 0;
}

// ParRes-style MPI kernels, written for Synergy's bench/mpi. Each checks its
// own result and prints "<kernel> <ranks> <seconds> <ok|FAILED>" on rank 0.
//
//   kernels p2p       pipelined synchronisation: a 2-D grid split into column
//                     blocks, each row flowing rank to rank (Send/Recv)
//   kernels stencil   5-point stencil on a row-block decomposition with halo
//                     exchange (Sendrecv) each iteration
//   kernels transpose distributed transpose: column blocks exchanged with
//                     MPI_Alltoall, then transposed locally
//   kernels nstream   a += b + s*c on each rank's arrays, barrier per iteration
//   kernels reduce    element-wise MPI_Reduce of each rank's vector to rank 0
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static double p2p(int* ok) {
  const int m = 1000, n = 1000 * size, iterations = 10;
  int width = n / size, first = rank * width;
  double* grid = calloc((size_t)m * (width + 1), sizeof(double));
#define G(i, j) grid[(size_t)(i) * (width + 1) + (j)]
  for (int j = 0; j <= width; ++j) G(0, j) = first + j - 1;
  // Global column 0 (rank 0's local column 1) is the fixed boundary i.
  if (rank == 0)
    for (int i = 0; i < m; ++i) G(i, 1) = i;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    for (int i = 1; i < m; ++i) {
      if (rank > 0) MPI_Recv(&G(i, 0), 1, MPI_DOUBLE, rank - 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int j = rank == 0 ? 2 : 1; j <= width; ++j) G(i, j) = G(i - 1, j) + G(i, j - 1) - G(i - 1, j - 1);
      if (rank < size - 1) MPI_Send(&G(i, width), 1, MPI_DOUBLE, rank + 1, i, MPI_COMM_WORLD);
    }
  }
  double elapsed = MPI_Wtime() - start;
  double corner = G(m - 1, width);
  MPI_Bcast(&corner, 1, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
  *ok = fabs(corner - (m - 1 + n - 1)) < 1e-6;
#undef G
  free(grid);
  return elapsed;
}

static double stencil(int* ok) {
  const int n = 1000, iterations = 20;
  int rows = n / size;
  double* in = malloc(sizeof(double) * (rows + 2) * n);
  double* out = calloc((size_t)(rows + 2) * n, sizeof(double));
  for (int i = 0; i < rows + 2; ++i)
    for (int j = 0; j < n; ++j) in[i * n + j] = (rank * rows + i - 1) + j;
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    MPI_Sendrecv(&in[1 * n], n, MPI_DOUBLE, up, 0, &in[(rows + 1) * n], n, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&in[rows * n], n, MPI_DOUBLE, down, 1, &in[0], n, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 1; i <= rows; ++i) {
      int global = rank * rows + i - 1;
      if (global == 0 || global == n - 1) continue;
      for (int j = 1; j < n - 1; ++j)
        out[i * n + j] += 0.2 * (in[i * n + j] + in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                                 in[i * n + j - 1] + in[i * n + j + 1]);
    }
  }
  double elapsed = MPI_Wtime() - start;
  double local = 0, total = 0, expected = 0;
  for (int i = 1; i <= rows; ++i)
    for (int j = 0; j < n; ++j) local += out[i * n + j];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) expected += iterations * (double)(i + j);
  *ok = fabs(total - expected) <= 1e-9 * expected;
  free(in);
  free(out);
  return elapsed;
}

static double transpose(int* ok) {
  const int block = 256, n = block * size, iterations = 10;
  double* a = malloc(sizeof(double) * n * block);   // columns [rank*block, +block)
  double* b = calloc((size_t)n * block, sizeof(double));
  double* sendbuf = malloc(sizeof(double) * n * block);
  double* recvbuf = malloc(sizeof(double) * n * block);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < block; ++j) a[i * block + j] = (double)i * n + rank * block + j;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    // Block p of sendbuf holds rows [p*block, +block) of this column block.
    memcpy(sendbuf, a, sizeof(double) * n * block);
    MPI_Alltoall(sendbuf, block * block, MPI_DOUBLE, recvbuf, block * block, MPI_DOUBLE,
                 MPI_COMM_WORLD);
    for (int p = 0; p < size; ++p)
      for (int i = 0; i < block; ++i)
        for (int j = 0; j < block; ++j)
          b[(p * block + j) * block + i] += recvbuf[p * block * block + i * block + j];
  }
  double elapsed = MPI_Wtime() - start;
  double error = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < block; ++j)
      error += fabs(b[i * block + j] - iterations * ((double)(rank * block + j) * n + i));
  double total;
  MPI_Allreduce(&error, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *ok = total < 1e-6;
  free(a);
  free(b);
  free(sendbuf);
  free(recvbuf);
  return elapsed;
}

static double nstream(int* ok) {
  const int n = 1 << 20, iterations = 20;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n),
         *c = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 2;
    c[i] = 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < n; ++i) a[i] += b[i] + 3.0 * c[i];
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double elapsed = MPI_Wtime() - start;
  double local = 0, total;
  for (int i = 0; i < n; ++i) local += a[i];
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  *ok = rank != 0 || fabs(total - 8.0 * iterations * n * size) < 1e-6 * total;
  free(a);
  free(b);
  free(c);
  return elapsed;
}

static double reduce(int* ok) {
  const int n = 1 << 16, iterations = 50;
  double* mine = malloc(sizeof(double) * n);
  double* sum = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) mine[i] = rank + 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    MPI_Reduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) mine[i] += 1;
  }
  double elapsed = MPI_Wtime() - start;
  *ok = 1;
  if (rank == 0)
    for (int i = 0; i < n; ++i)
      if (sum[i] != size * (size + 1) / 2.0 + (double)size * (iterations - 1)) *ok = 0;
  free(mine);
  free(sum);
  return elapsed;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* kernel = argc > 1 ? argv[1] : "p2p";
  // argv[2]: how often to run it (the time printed is their sum), for runs
  // long enough to hold several checkpoints (bench/cluster/checkpoint.py).
  int repeats = argc > 2 ? atoi(argv[2]) : 1;
  struct { const char* name; double (*run)(int*); } kernels[] = {
      {"p2p", p2p}, {"stencil", stencil}, {"transpose", transpose}, {"nstream", nstream},
      {"reduce", reduce}};
  int found = 0;
  for (int k = 0; k < 5; ++k) {
    if (strcmp(kernel, kernels[k].name)) continue;
    found = 1;
    int ok = 1;
    double total = 0;
    for (int repeat = 0; repeat < repeats; ++repeat) {
      int thisOk;
      double elapsed = kernels[k].run(&thisOk), slowest;
      MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      total += slowest;
      ok = ok && thisOk;
    }
    if (rank == 0) printf("%s %d %.6f %s\n", kernel, size, total, ok ? "ok" : "FAILED");
  }
  if (!found && rank == 0) fprintf(stderr, "kernels: unknown kernel '%s'\n", kernel);
  MPI_Finalize();
  return found ? 0 : 1;
}

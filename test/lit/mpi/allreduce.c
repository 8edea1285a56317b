// MPI_Allreduce on several types and ops, odd counts, MPI_IN_PLACE, and
// counts large enough for the runtime to split the vector into one block
// per rank (a count no rank count divides, checksums that weigh position).
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int a[3] = {rank, rank * rank, 1}, b[3];
  MPI_Allreduce(a, b, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d int sum %d %d %d\n", rank, b[0], b[1], b[2]);
  MPI_Allreduce(MPI_IN_PLACE, a, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  printf("rank %d in-place max %d %d %d\n", rank, a[0], a[1], a[2]);
  long long l = (long long)rank << 33, lsum;
  MPI_Allreduce(&l, &lsum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d long long sum %lld\n", rank, lsum);
  double d[2] = {0.5 * rank, -1.0 * rank}, dmin[2];
  MPI_Allreduce(d, dmin, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  printf("rank %d double min %.1f %.1f\n", rank, dmin[0], dmin[1]);
  unsigned char bits = (unsigned char)(1 << rank), all;
  MPI_Allreduce(&bits, &all, 1, MPI_UNSIGNED_CHAR, MPI_BOR, MPI_COMM_WORLD);
  printf("rank %d bor %d\n", rank, all);
  int n = 100003;
  int* big = malloc(n * sizeof(int));
  int* sum = malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) big[i] = i % 1000 + rank;
  MPI_Allreduce(big, sum, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  long check = 0;
  for (int i = 0; i < n; ++i) check += (long)sum[i] * (i % 7 + 1);
  printf("rank %d big checksum %ld\n", rank, check);
  double* peaks = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) peaks[i] = (double)((i * 7919 + rank * 104729) % 100003) / 3.0;
  MPI_Allreduce(MPI_IN_PLACE, peaks, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double weighted = 0;
  for (int i = 0; i < n; ++i) weighted += peaks[i] * (i % 5 + 1);
  printf("rank %d big in-place max checksum %.6e first %.4f last %.4f\n", rank, weighted,
         peaks[0], peaks[n - 1]);
  MPI_Finalize();
  return 0;
}

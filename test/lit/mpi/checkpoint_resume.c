// Killed right after its third checkpoint, then resumed with --resume: the
// output and exit status must be an undisturbed run's (see
// checkpoint-resume.test). Each rank prints in every phase, flushing, so
// output written before the checkpoint must not be printed twice; state
// lives in static data, the heap and locals across the barriers. Rank 0
// exits with status 3, which the resumed run must report too.
// RUN: %mpi-diff --resume-after 3 %s %t 2 3
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long long total = 1;

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long long* values = malloc(sizeof(long long) * 1000);
  for (int i = 0; i < 1000; ++i) values[i] = i * (rank + 1);
  for (int phase = 0; phase < 6; ++phase) {
    long long local = 0;
    for (int i = 0; i < 1000; ++i) local += values[i] * (phase + 1);
    long long sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    total = (total * 31 + sum) % 1000000007;
    for (int i = 0; i < 1000; ++i) values[i] ^= phase + rank;
    printf("rank %d phase %d sum %lld total %lld\n", rank, phase, sum, total);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(values);
  MPI_Finalize();
  return rank == 0 ? 3 : 0;
}

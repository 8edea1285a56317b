// MPI start-up cost, for bench/mpi/init.py: each rank times its own
// MPI_Init and MPI_Finalize with the monotonic clock, and rank 0 prints the
// slowest rank's of each in microseconds. The rest of the job's start
// (mpirun or synergy-run launching the ranks) is timed from outside.
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  double before = now_us();
  MPI_Init(&argc, &argv);
  double init = now_us() - before;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double slowest;
  MPI_Reduce(&init, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  before = now_us();
  MPI_Finalize();
  double finalize = now_us() - before;
  // Finalize is timed after the last message, so only rank 0's is shown.
  if (rank == 0) printf("init_us %.1f\nfinalize_us %.1f\n", slowest, finalize);
  return 0;
}

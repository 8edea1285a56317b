// Job-start probe for bench/cluster/cluster_bench.py.
//
// Prints "started <rank> <ns>" as the first thing main does, <ns> being
// CLOCK_REALTIME in nanoseconds. The bench reads the clock before it starts
// `synergy-run --cluster` (or mpirun) and takes the earliest rank's stamp:
// the difference is the job start, the time until the first rank runs. All
// processes are on one machine, so they read the same clock. The rank comes
// from MPI after the stamp is taken, so that MPI_Init's cost is not counted.
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char** argv) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("started %d %lld\n", rank, (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
  MPI_Finalize();
  return 0;
}

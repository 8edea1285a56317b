// For the cluster recovery test (cluster_test.py checkpoint-recovery): a
// job of many short phases, each ending in a barrier control point, with
// every rank printing a line per phase, so that a host can be killed while
// it runs and the output of the restarted job can be compared with
// OpenMPI's line for line. argv[1]: the phases, argv[2]: the work of each,
// argv[3] (background_moves_test.py): a pause in ms before each phase's
// allreduce, which keeps the job waiting for a while between control points
// without changing what it prints.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int phases = argc > 1 ? atoi(argv[1]) : 40;
  long work = argc > 2 ? atol(argv[2]) : 1000000;
  long pauseMs = argc > 3 ? atol(argv[3]) : 0;
  unsigned long long state = 0x9e3779b97f4a7c15ULL * (unsigned long long)(rank + 1);
  for (int phase = 0; phase < phases; ++phase) {
    for (long i = 0; i < work; ++i) state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    if (pauseMs > 0) usleep((useconds_t)(pauseMs * 1000));
    unsigned long long sum = 0;
    MPI_Allreduce(&state, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d phase %d sum %llu\n", rank, size, phase, sum);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}

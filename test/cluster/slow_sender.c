// A job that is slow but not deadlocked, for cluster_test.py's deadlock
// case: rank 0 waits in MPI_Recv while the last rank, on another host,
// computes for 3 s (longer than the 2 s the deadlock check waits) before
// it sends; the others wait in a barrier meanwhile. The job must finish
// normally, with OpenMPI's output.
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char** argv) {
  int rank, size, value = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == size - 1) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do clock_gettime(CLOCK_MONOTONIC, &now);
    while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
           3000000000L);
    value = 42;
    MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Recv(&value, 1, MPI_INT, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  printf("rank %d of %d got %d\n", rank, size, value);
  MPI_Finalize();
  return 0;
}

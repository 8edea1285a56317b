// A job that keeps its ranks on different hosts talking for a few seconds,
// for cluster_test.py's redis-stall case: the test stops Redis while the
// job runs and must still see OpenMPI's output. Each of argv[1] rounds
// rank 0 pauses argv[2] ms, then every rank passes a value round the ring
// and all reduce it. Rank 0 prints a line per round (flushed at once: the
// first one tells the test that the job runs), every rank its total last.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  int pauseMs = argc > 2 ? atoi(argv[2]) : 100;
  long total = 0;
  for (int round = 0; round < rounds; ++round) {
    if (rank == 0 && pauseMs > 0) usleep((useconds_t)pauseMs * 1000);
    int sent = round * size + rank, received = -1;
    MPI_Sendrecv(&sent, 1, MPI_INT, (rank + 1) % size, round, &received, 1, MPI_INT,
                 (rank + size - 1) % size, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long value = received, sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    total += sum + received;
    if (rank == 0) {
      printf("round %d sum %ld\n", round, sum);
      fflush(stdout);
    }
  }
  printf("rank %d of %d total %ld\n", rank, size, total);
  MPI_Finalize();
  return 0;
}

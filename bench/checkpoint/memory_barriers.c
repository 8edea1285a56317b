// Checkpoint cost against memory size: each rank fills MIB mebibytes of
// heap with non-zero data, then meets the others at 10 barriers on
// MPI_COMM_WORLD. Run with --checkpoint-every 0 and
// SYNERGY_CHECKPOINT_STATS=1 (see bench/checkpoint/run.sh): the stats line
// gives the total time of the 10 checkpoints.
//
//   memory_barriers MIB
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 1) << 20;
  unsigned char* data = malloc(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = (unsigned char)(i * 31 + rank + 1) | 1;
  unsigned long sum = 0;
  for (int round = 0; round < 10; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    data[(size_t)round * 4096 % bytes] += 2;
  }
  for (size_t i = 0; i < bytes; i += 4096) sum += data[i];
  if (rank == 0) printf("%zu MiB sum %lu\n", bytes >> 20, sum);
  free(data);
  MPI_Finalize();
  return 0;
}

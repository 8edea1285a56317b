// MPI_Reduce in a loop whose root comes late, for cluster_test.py's
// reduce-run-ahead case: rank 0, the root, sleeps 300 ms, then both ranks
// call MPI_Reduce CALLS times (64 by default) on 512 KiB of doubles, which
// crosses hosts in segments. Rank 1 meanwhile is free to run ahead, and
// every call's data that it sends before the root takes it waits in the
// root's process. Each call's contributions differ, and the root prints
// each result's hash, so that the data is checked against OpenMPI as well.
//
// usage: reduce_run_ahead [CALLS]
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "message_data.h"

enum { kElements = 65536 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int calls = argc == 2 ? atoi(argv[1]) : 64;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || calls < 1 || calls > 4096) {
    if (rank == 0) fprintf(stderr, "reduce_run_ahead needs 2 ranks and 1 to 4096 calls\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double* mine = malloc(sizeof(double) * kElements);
  double* result = malloc(sizeof(double) * kElements);
  if (!mine || !result) MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank == 0) usleep(300000);
  for (int call = 0; call < calls; ++call) {
    // Small integers: every sum is exact, whatever the order.
    for (int i = 0; i < kElements; ++i) mine[i] = (double)((i * 7 + call * 13 + rank * 5) % 1000);
    MPI_Reduce(mine, result, kElements, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("call %d: hash %016llx\n", call,
             (unsigned long long)hash((const uint8_t*)result, sizeof(double) * kElements));
  }
  free(result);
  free(mine);
  MPI_Finalize();
  return 0;
}

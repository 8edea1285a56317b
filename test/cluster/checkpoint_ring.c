// For checkpoint_cluster_test.py's chaos case: phases of point-to-point
// traffic round a ring (MPI_Sendrecv), a broadcast and a reduction, each
// phase ending in barrier control points, every rank printing a line per
// phase; state lives in a heap array and locals across the barriers, so a
// job restarted from a checkpoint after a lost host must carry all of it
// over to print OpenMPI's output. argv[1]: the phases, argv[2]: the work
// of each.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kValues = 4096 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int phases = argc > 1 ? atoi(argv[1]) : 20;
  long work = argc > 2 ? atol(argv[2]) : 100000;
  unsigned* values = malloc(kValues * sizeof *values);
  unsigned* received = malloc(kValues * sizeof *received);
  for (int i = 0; i < kValues; ++i) values[i] = (unsigned)(rank * 7919 + i);
  int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  for (int phase = 0; phase < phases; ++phase) {
    for (long step = 0; step < work; ++step) {
      unsigned* v = &values[step % kValues];
      *v = *v * 1103515245u + 12345u + (unsigned)phase;
    }
    MPI_Sendrecv(values, kValues, MPI_UNSIGNED, next, phase, received, kValues, MPI_UNSIGNED,
                 previous, phase, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    unsigned mixed = 0;
    for (int i = 0; i < kValues; ++i) {
      values[i] ^= received[(i + phase) % kValues];
      mixed = mixed * 31u + values[i];
    }
    unsigned seed = mixed;
    MPI_Bcast(&seed, 1, MPI_UNSIGNED, phase % size, MPI_COMM_WORLD);
    values[phase % kValues] += seed;
    unsigned long long total = 0, own = mixed;
    MPI_Reduce(&own, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    printf("rank %d phase %d mixed %u seed %u\n", rank, phase, mixed, seed);
    if (rank == 0) printf("phase %d total %llu\n", phase, total);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(received);
  free(values);
  MPI_Finalize();
  return 0;
}

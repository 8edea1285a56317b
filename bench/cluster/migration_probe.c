// For bench/cluster/migration_bench.py: each rank fills a buffer of
// argv[1] MiB with data of its own (none of it zero, so a checkpoint
// carries all of it), then runs argv[2] phases, each changing part of the
// buffer and ending in an MPI_Allreduce of its checksum, a barrier control
// point. Rank 0 prints the final sum, so a move that lost or changed a
// byte shows in the output.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t words = (size_t)(argc > 1 ? atol(argv[1]) : 1) << 17;  // 8-byte words per MiB
  int phases = argc > 2 ? atoi(argv[2]) : 8;
  uint64_t* data = malloc(words * sizeof *data);
  if (!data) MPI_Abort(MPI_COMM_WORLD, 2);
  for (size_t i = 0; i < words; ++i) data[i] = (i + 1) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)rank;
  uint64_t total = 0;
  for (int phase = 0; phase < phases; ++phase) {
    uint64_t sum = 0;
    for (size_t i = (size_t)phase; i < words; i += 64) data[i] = data[i] * 6364136223846793005ULL + 1;
    for (size_t i = 0; i < words; i += 8) sum += data[i];
    MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("sum %llu\n", (unsigned long long)total);
  free(data);
  MPI_Finalize();
  return 0;
}

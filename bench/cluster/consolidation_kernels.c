// For bench/cluster/consolidation_bench.py (Faabric's Fig. 14): two kernels
// of argv[2] phases, each phase ending in an MPI_Barrier, a barrier control
// point where a migration can be taken; a final MPI_Allreduce of every
// rank's checksum (one more control point) is printed by rank 0, so that a
// move that lost or changed a byte shows in the output.
//
//   alltoall N   network-bound: each phase is an MPI_Alltoall of N KiB to
//                every rank, then a pass over what arrived
//   compute N    compute-bound: each phase is N million steps of a 64-bit
//                generator per rank, then the barrier
//
// Integer arithmetic only, so the checksum is the same natively and as a
// granule.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t alltoallPhases(int rank, int size, int phases, size_t kib) {
  size_t words = kib * 128;  // 8-byte words per peer
  uint64_t* out = malloc(words * (size_t)size * sizeof *out);
  uint64_t* in = malloc(words * (size_t)size * sizeof *in);
  if (!out || !in) MPI_Abort(MPI_COMM_WORLD, 2);
  for (size_t i = 0; i < words * (size_t)size; ++i)
    out[i] = (i + 1) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)rank;
  uint64_t checksum = 0;
  for (int phase = 0; phase < phases; ++phase) {
    MPI_Alltoall(out, (int)words, MPI_UINT64_T, in, (int)words, MPI_UINT64_T, MPI_COMM_WORLD);
    for (size_t i = 0; i < words * (size_t)size; ++i) {
      checksum = checksum * 31 + in[i];
      out[i] = in[i] * 6364136223846793005ULL + (uint64_t)phase;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(out);
  free(in);
  return checksum;
}

static uint64_t computePhases(int rank, int phases, long millions) {
  uint64_t state = 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1);
  for (int phase = 0; phase < phases; ++phase) {
    for (long i = 0; i < millions * 1000000L; ++i)
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return state;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4 || (strcmp(argv[1], "alltoall") && strcmp(argv[1], "compute"))) {
    if (rank == 0) fprintf(stderr, "usage: consolidation_kernels alltoall|compute PHASES N\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int phases = atoi(argv[2]);
  long amount = atol(argv[3]);
  uint64_t checksum = strcmp(argv[1], "alltoall") == 0
                          ? alltoallPhases(rank, size, phases, (size_t)amount)
                          : computePhases(rank, phases, amount);
  uint64_t total = 0;
  MPI_Allreduce(&checksum, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("kernel %s phases %d size %ld checksum %llu\n", argv[1], phases, amount,
           (unsigned long long)total);
  MPI_Finalize();
  return 0;
}

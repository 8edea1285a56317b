// For bench/cluster/consolidation_bench.py (Faabric's Fig. 14): two kernels
// whose barrier control points are where a migration can be taken; a final
// MPI_Allreduce of every rank's checksum (one more control point) is
// printed by rank 0, so that a move that lost or changed a byte shows in
// the output.
//
//   alltoall N W  network-bound, Faabric's "all-to-all kernel that performs
//                 synchronisation over a vector in a loop" (§6.6): each of
//                 N steps is an MPI_Alltoall of W 8-byte words to every
//                 rank, a pass over what arrived, and an MPI_Allreduce of
//                 the W-word vector (the step's one control point). Small
//                 messages, many steps: its time is the latency between
//                 the ranks, which fragmenting over hosts multiplies.
//   compute N M   compute-bound: each of N phases is M million steps of a
//                 64-bit generator per rank, then an MPI_Barrier (the
//                 phase's control point)
//
// Integer arithmetic only, so the checksum is the same natively and as a
// granule.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t alltoallSteps(int rank, int size, int steps, size_t words) {
  uint64_t* out = malloc(words * (size_t)size * sizeof *out);
  uint64_t* in = malloc(words * (size_t)size * sizeof *in);
  uint64_t* vector = malloc(words * sizeof *vector);
  uint64_t* sum = malloc(words * sizeof *sum);
  if (!out || !in || !vector || !sum) MPI_Abort(MPI_COMM_WORLD, 2);
  for (size_t i = 0; i < words * (size_t)size; ++i)
    out[i] = (i + 1) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)rank;
  for (size_t i = 0; i < words; ++i) vector[i] = (uint64_t)rank * 0x2545f4914f6cdd1dULL + i;
  uint64_t checksum = 0;
  for (int step = 0; step < steps; ++step) {
    MPI_Alltoall(out, (int)words, MPI_UINT64_T, in, (int)words, MPI_UINT64_T, MPI_COMM_WORLD);
    for (size_t i = 0; i < words * (size_t)size; ++i) {
      vector[i % words] ^= in[i];
      out[i] = in[i] * 6364136223846793005ULL + (uint64_t)step;
    }
    MPI_Allreduce(vector, sum, (int)words, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    for (size_t i = 0; i < words; ++i) {
      checksum = checksum * 31 + sum[i];
      vector[i] = sum[i] * 0x9e3779b97f4a7c15ULL + (uint64_t)rank;
    }
  }
  free(out);
  free(in);
  free(vector);
  free(sum);
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
    if (rank == 0)
      fprintf(stderr, "usage: consolidation_kernels alltoall STEPS WORDS | compute PHASES MILLIONS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int phases = atoi(argv[2]);
  long amount = atol(argv[3]);
  if (phases < 1 || amount < 1 || amount > (1L << 20)) {
    if (rank == 0) fprintf(stderr, "consolidation_kernels: N and W (or M) from 1, W at most 2^20\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  uint64_t checksum = strcmp(argv[1], "alltoall") == 0
                          ? alltoallSteps(rank, size, phases, (size_t)amount)
                          : computePhases(rank, phases, amount);
  uint64_t total = 0;
  MPI_Allreduce(&checksum, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("kernel %s phases %d size %ld checksum %llu\n", argv[1], phases, amount,
           (unsigned long long)total);
  MPI_Finalize();
  return 0;
}

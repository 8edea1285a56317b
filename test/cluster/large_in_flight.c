// A large message crossing hosts while every other rank blocks in a receive
// that waits for it, for cluster_test.py's deadlock case, which runs it with
// the deadlock check shortened to one quiet tick (SYNERGY_DEADLOCK_TICKS=1)
// and must see no deadlock report, only OpenMPI's output:
//   rank 0 -> 1: a 96 MiB MPI_Ssend, which rank 1 receives into every
//                other block of 8 ints of a 192 MiB buffer (an
//                MPI_Type_vector), so that unpacking it keeps rank 1 busy
//                inside its MPI_Recv;
//   rank 1 -> 2.., then: a small message to each other rank, which waits
//                for it in MPI_Recv meanwhile.
// While the data crosses, every rank is inside a blocking call, yet the job
// is live. Rank 1 prints a hash of what it received, so lost or misplaced
// data shows too.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define kLargeInts ((int)((96u << 20) / sizeof(int)))
enum { kBlockInts = 8 };

// The received ints in order: block b of 8 sits at int 16 * b.
static uint64_t hashBlocks(const int* data, int count) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < count; ++i) {
    size_t at = (size_t)(i / kBlockInts) * 2 * kBlockInts + (size_t)(i % kBlockInts);
    h = (h ^ (uint32_t)data[at]) * 1099511628211ull;
  }
  return h;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 3) {
    if (rank == 0) fprintf(stderr, "large_in_flight needs at least 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    int* data = malloc((size_t)kLargeInts * sizeof(int));
    if (!data) MPI_Abort(MPI_COMM_WORLD, 3);
    uint32_t state = 12345;
    for (int i = 0; i < kLargeInts; ++i) {
      state = state * 1664525u + 1013904223u;
      data[i] = (int)state;
    }
    MPI_Ssend(data, kLargeInts, MPI_INT, 1, 1, MPI_COMM_WORLD);
    free(data);
  } else if (rank == 1) {
    MPI_Datatype everyOther;
    MPI_Type_vector(kLargeInts / kBlockInts, kBlockInts, 2 * kBlockInts, MPI_INT, &everyOther);
    MPI_Type_commit(&everyOther);
    int* spread = calloc((size_t)kLargeInts * 2, sizeof(int));
    if (!spread) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Status status;
    MPI_Recv(spread, 1, everyOther, 0, 1, MPI_COMM_WORLD, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_INT, &count);
    printf("rank 1 got %d ints from %d: hash %016llx\n", count, status.MPI_SOURCE,
           (unsigned long long)hashBlocks(spread, kLargeInts));
    free(spread);
    MPI_Type_free(&everyOther);
    for (int other = 2; other < size; ++other) {
      token = 100 + other;
      MPI_Send(&token, 1, MPI_INT, other, 2, MPI_COMM_WORLD);
    }
  } else {
    MPI_Recv(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d got %d\n", rank, token);
  }
  MPI_Finalize();
  return 0;
}

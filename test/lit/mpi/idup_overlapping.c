// Several MPI_Comm_idup outstanding at once on overlapping communicators
// (MPI_COMM_WORLD, the halves of a split, the intercommunicator between
// them, and its merge), started in a different order on different ranks,
// then nonblocking collectives on every duplicate in flight together.
// MPI_Comm_idup must not wait for the other members: each group's rank 0
// waits for a message that its other members send only after they started
// their idups, before it starts its own (the shape of MPICH's comm_idup),
// which deadlocks when idup of the intercommunicator blocks.
// RUN: %mpi-diff %s %t 2 3 4 5
#include <mpi.h>
#include <stdio.h>

#define NCOMMS 4

static int world_rank;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int color = world_rank % 2;
  MPI_Comm half, inter, merged;
  MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 3, &inter);
  MPI_Intercomm_merge(inter, color, &merged);
  int half_rank, half_size;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);

  MPI_Comm parents[NCOMMS] = {MPI_COMM_WORLD, half, inter, merged};
  const char* names[NCOMMS] = {"world", "half", "inter", "merged"};
  MPI_Comm dups[NCOMMS];
  MPI_Request requests[2 * NCOMMS];
  int token = world_rank;
  if (half_rank == 0) {
    // Rank 0 of each half starts nothing until the other members of its
    // half have started all their idups.
    for (int i = 1; i < half_size; ++i)
      MPI_Recv(&token, 1, MPI_INT, i, 0, half, MPI_STATUS_IGNORE);
    for (int k = 0; k < NCOMMS; ++k) MPI_Comm_idup(parents[k], &dups[k], &requests[k]);
  } else {
    // The others start them in reverse order, the odd world ranks with the
    // intercommunicator before its merge.
    for (int k = NCOMMS - 1; k >= 0; --k) {
      int which = color == 1 && k >= 2 ? 5 - k : k;
      MPI_Comm_idup(parents[which], &dups[which], &requests[which]);
    }
    MPI_Ssend(&token, 1, MPI_INT, 0, 0, half);
  }
  MPI_Waitall(NCOMMS, requests, MPI_STATUSES_IGNORE);

  // A nonblocking allreduce and allgather on each duplicate, all in flight.
  int sums[NCOMMS], gathered[NCOMMS][16];
  for (int k = 0; k < NCOMMS; ++k) {
    MPI_Iallreduce(&world_rank, &sums[k], 1, MPI_INT, MPI_SUM, dups[k], &requests[2 * k]);
    MPI_Iallgather(&world_rank, 1, MPI_INT, gathered[k], 1, MPI_INT, dups[k],
                   &requests[2 * k + 1]);
  }
  MPI_Waitall(2 * NCOMMS, requests, MPI_STATUSES_IGNORE);
  for (int k = 0; k < NCOMMS; ++k) {
    int size, inter_flag;
    MPI_Comm_test_inter(dups[k], &inter_flag);
    if (inter_flag)
      MPI_Comm_remote_size(dups[k], &size);
    else
      MPI_Comm_size(dups[k], &size);
    char line[256];
    int at = snprintf(line, sizeof line, "world %d: %s dup: sum %d, gathered", world_rank,
                      names[k], sums[k]);
    for (int i = 0; i < size; ++i)
      at += snprintf(line + at, sizeof line - at, " %d", gathered[k][i]);
    printf("%s\n", line);
    MPI_Comm_free(&dups[k]);
  }
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}

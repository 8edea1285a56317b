// Nonblocking collectives (MPI_Ibarrier, MPI_Iallreduce, MPI_Ibcast) on
// MPI_COMM_WORLD and on a split communicator, started and completed before
// and after barrier control points where the job is quiescent: each rank
// counts the nonblocking collectives it started on each communicator, and
// the count tags their messages, so a rank that a live move or `--resume`
// brings back with a count of 0 while the others keep theirs matches the
// wrong collective's messages (issue 22). The checkpoint records the counts
// (rank section, format version 8).
// RUN: %mpi-diff --live-move 2 %s %t/moved 2 3 4
// RUN: %mpi-diff --live-move 3 %s %t/moved3 3
// RUN: %mpi-diff --resume-after 2 %s %t/resumed 2 3 4
#include <mpi.h>
#include <stdio.h>

// One round of nonblocking collectives on `comm`; returns a digest of what
// they delivered.
static long round_on(MPI_Comm comm, int round) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Request requests[3];
  long mine = (long)(rank + 1) * (round + 3), sum = 0;
  int root = round % size;
  int value = rank == root ? 1000 + 17 * round : -1;
  MPI_Ibarrier(comm, &requests[0]);
  MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm, &requests[1]);
  MPI_Ibcast(&value, 1, MPI_INT, root, comm, &requests[2]);
  MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
  // Completed out of order with the next one started first.
  MPI_Request late[2];
  long max = 0;
  MPI_Iallreduce(&mine, &max, 1, MPI_LONG, MPI_MAX, comm, &late[0]);
  MPI_Ibarrier(comm, &late[1]);
  MPI_Wait(&late[1], MPI_STATUS_IGNORE);
  MPI_Wait(&late[0], MPI_STATUS_IGNORE);
  return sum * 7 + value * 3 + max;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  for (int phase = 0; phase < 4; ++phase) {
    // A different number of collectives on each communicator in each
    // phase, so that the counts differ from each other.
    for (int round = 0; round <= phase; ++round) {
      long world = round_on(MPI_COMM_WORLD, phase * 10 + round);
      printf("rank %d phase %d round %d world %ld\n", rank, phase, round, world);
    }
    long split = round_on(half, phase);
    printf("rank %d phase %d half %ld\n", rank, phase, split);
    fflush(stdout);
    // A barrier control point: every request above is complete.
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}

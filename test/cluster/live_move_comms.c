// For cluster_test.py live-move-comms: a job whose ranks hold, across the
// barrier control point where one rank moves live to another part (issue
// 22's live move), every shape of communicator the checkpoint records: two
// splits of MPI_COMM_WORLD (by halves, whose members share a host at np 4
// over two hosts, and by parity, whose members do not), a duplicate of it
// and a periodic ring made by MPI_Cart_create. Before the move each is
// used a different number of times (blocking and nonblocking collectives,
// communicators made from it), so that a rank that went on from another
// count than its own, on any of them, matches another collective's
// messages or slots, or makes another communicator, and prints something
// else than OpenMPI's rank (or hangs). After the move every rank runs
// collectives and point-to-point on each, makes a communicator from the
// duplicate and the ring and uses it, and prints each result.
// Control points (collectives on MPI_COMM_WORLD) are only the two barriers
// and the ones after them.
#include <mpi.h>
#include <stdio.h>

static void line(int rank, const char* what, long value) {
  printf("rank %d %s %ld\n", rank, what, value);
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm halves, parity, dup, ring;
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2 ? 0 : 1, rank, &halves);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &parity);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);

  // Different counts on each before the move.
  long value = rank + 1, sum = 0;
  for (int i = 0; i < 3; ++i) {
    MPI_Allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, halves);
    value += sum;
  }
  for (int i = 0; i < 5; ++i) {
    MPI_Allreduce(&value, &sum, 1, MPI_LONG, MPI_MAX, parity);
    value = sum + i;
  }
  long root = rank == 0 ? 41 : 0;
  MPI_Bcast(&root, 1, MPI_LONG, 0, dup);
  MPI_Request request;
  MPI_Iallreduce(&value, &sum, 1, MPI_LONG, MPI_MIN, dup, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Comm spare;  // made and freed: the dup's count of communicators made
  MPI_Comm_dup(dup, &spare);
  MPI_Comm_free(&spare);
  long gathered[64];
  MPI_Allgather(&value, 1, MPI_LONG, gathered, 1, MPI_LONG, ring);
  line(rank, "before", value + sum + root + gathered[size - 1]);

  MPI_Barrier(MPI_COMM_WORLD);  // control point 1
  MPI_Barrier(MPI_COMM_WORLD);  // control point 2: the move

  // Every communicator after the move: collectives...
  long got = 0;
  MPI_Allreduce(&value, &got, 1, MPI_LONG, MPI_SUM, halves);
  line(rank, "halves allreduce", got);
  MPI_Allreduce(&value, &got, 1, MPI_LONG, MPI_SUM, parity);
  line(rank, "parity allreduce", got);
  got = rank == 0 ? 7 * value : 0;
  MPI_Bcast(&got, 1, MPI_LONG, 0, dup);
  line(rank, "dup bcast", got);
  MPI_Iallreduce(&value, &got, 1, MPI_LONG, MPI_MAX, dup, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  line(rank, "dup iallreduce", got);
  MPI_Allgather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, ring);
  long all = 0;
  for (int i = 0; i < size; ++i) all = all * 10 + ((int*)gathered)[i];
  line(rank, "ring allgather", all);
  // ... point-to-point ...
  int left, right;
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  long from = -1;
  MPI_Sendrecv(&value, 1, MPI_LONG, right, 3, &from, 1, MPI_LONG, left, 3, ring,
               MPI_STATUS_IGNORE);
  line(rank, "ring from left", from);
  int partySize, me;
  MPI_Comm_size(parity, &partySize);
  MPI_Comm_rank(parity, &me);
  from = -1;
  MPI_Sendrecv(&value, 1, MPI_LONG, (me + 1) % partySize, 4, &from, 1, MPI_LONG,
               (me + partySize - 1) % partySize, 4, parity, MPI_STATUS_IGNORE);
  line(rank, "parity from previous", from);
  MPI_Comm_size(halves, &partySize);
  MPI_Comm_rank(halves, &me);
  if (partySize > 1) {
    if (me == 0) MPI_Send(&value, 1, MPI_LONG, partySize - 1, 5, halves);
    if (me == partySize - 1) {
      MPI_Recv(&from, 1, MPI_LONG, 0, 5, halves, MPI_STATUS_IGNORE);
      line(rank, "halves from first", from);
    }
  }
  // ... and communicators made from them after the move.
  MPI_Comm again, row;
  MPI_Comm_split(dup, rank % 2 == 0 ? 0 : 1, rank, &again);
  MPI_Allreduce(&value, &got, 1, MPI_LONG, MPI_SUM, again);
  line(rank, "split of dup allreduce", got);
  int keep[1] = {1};
  MPI_Cart_sub(ring, keep, &row);
  MPI_Reduce(&value, &got, 1, MPI_LONG, MPI_SUM, size - 1, row);
  if (rank == size - 1) line(rank, "ring sub reduce", got);
  MPI_Allreduce(&value, &got, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  line(rank, "world allreduce", got);

  MPI_Comm_free(&row);
  MPI_Comm_free(&again);
  MPI_Comm_free(&ring);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&parity);
  MPI_Comm_free(&halves);
  MPI_Finalize();
  return 0;
}

// MPI_Comm_idup against OpenMPI. Every rank belongs to two pair
// communicators and duplicates them in an order that depends on its rank,
// so that with a blocking MPI_Comm_dup each would wait on the next around
// the ring: the nonblocking duplicates all complete. A duplicate is
// congruent with its parent, keeps its attributes (copied by
// MPI_COMM_DUP_FN, not by MPI_COMM_NULL_COPY_FN) and its Cartesian
// topology, and an MPI_Comm_idup started between two MPI_Iallreduce calls
// on the same parent leaves both right.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>

static int rank, size;

static void check(const char* what, MPI_Comm parent, MPI_Comm dup) {
  int result, dup_size, sum, one = 1;
  MPI_Comm_compare(parent, dup, &result);
  MPI_Comm_size(dup, &dup_size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
  MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, dup);
  printf("%d %s: %s, size %d, rank sum %d, members %d\n", rank, what,
         result == MPI_CONGRUENT ? "congruent" : "not congruent", dup_size, sum, one);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm pairs[2], dups[2];
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pairs[0]);
  MPI_Comm_split(MPI_COMM_WORLD, ((rank + 1) % size) / 2, rank, &pairs[1]);
  MPI_Request requests[2];
  int first = rank % 2;
  MPI_Comm_idup(pairs[first], &dups[first], &requests[0]);
  MPI_Comm_idup(pairs[1 - first], &dups[1 - first], &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  check("pair 0 dup", pairs[0], dups[0]);
  check("pair 1 dup", pairs[1], dups[1]);
  for (int i = 0; i < 2; ++i) {
    MPI_Comm_free(&dups[i]);
    MPI_Comm_free(&pairs[i]);
  }

  int copied, dropped, flag, *value;
  static int payload = 42;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &copied, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &dropped, NULL);
  MPI_Comm base, dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_set_attr(base, copied, &payload);
  MPI_Comm_set_attr(base, dropped, &payload);
  MPI_Request request;
  MPI_Comm_idup(base, &dup, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Comm_get_attr(dup, copied, &value, &flag);
  printf("%d copied attribute: flag %d value %d\n", rank, flag, flag ? *value : -1);
  MPI_Comm_get_attr(dup, dropped, &value, &flag);
  printf("%d dropped attribute: flag %d\n", rank, flag);
  MPI_Comm_free(&dup);

  int dims[1] = {size}, periods[1] = {1}, status, left, right;
  MPI_Comm ring, ring_dup;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Comm_idup(ring, &ring_dup, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Topo_test(ring_dup, &status);
  MPI_Cart_shift(ring_dup, 0, 1, &left, &right);
  printf("%d ring dup: %s, left %d right %d\n", rank, status == MPI_CART ? "MPI_CART" : "other",
         left, right);
  MPI_Comm_free(&ring_dup);
  MPI_Comm_free(&ring);

  int a = rank + 1, b = 10 * (rank + 1), sum_a, max_b;
  MPI_Request around[3];
  MPI_Iallreduce(&a, &sum_a, 1, MPI_INT, MPI_SUM, base, &around[0]);
  MPI_Comm_idup(base, &dup, &around[1]);
  MPI_Iallreduce(&b, &max_b, 1, MPI_INT, MPI_MAX, base, &around[2]);
  MPI_Waitall(3, around, MPI_STATUSES_IGNORE);
  check("dup between iallreduces", base, dup);
  printf("%d iallreduces: sum %d max %d\n", rank, sum_a, max_b);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&base);
  MPI_Comm_free_keyval(&copied);
  MPI_Comm_free_keyval(&dropped);

  MPI_Finalize();
  return 0;
}

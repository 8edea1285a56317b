// MPI_Intercomm_create between the even and the odd world ranks (groups of
// different sizes at odd -np), then on the intercommunicator: the local and
// remote sizes and groups, MPI_Comm_test_inter, point-to-point addressed
// to remote ranks (specific and MPI_ANY_SOURCE receives, whose status names
// the remote rank; MPI_Sendrecv; an MPI_Issend/MPI_Irecv pair large enough
// to go by rendezvous), and the same on an MPI_Comm_dup of it, which
// compares congruent and keeps its messages apart from the original's.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BIG 20000

int main(int argc, char** argv) {
  int world_rank, world_size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  int color = world_rank % 2;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &local);
  // Leaders: local rank 0 of each group, world ranks 0 and 1.
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, &inter);

  int flag, rank, size, remote_size;
  MPI_Comm_test_inter(inter, &flag);
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_size(inter, &size);
  MPI_Comm_remote_size(inter, &remote_size);
  printf("world %d: inter %d, rank %d of %d, remote size %d\n", world_rank, flag, rank, size,
         remote_size);
  MPI_Comm_test_inter(local, &flag);
  printf("world %d: local communicator inter %d\n", world_rank, flag);

  MPI_Group world_group, local_group, remote_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(inter, &local_group);
  MPI_Comm_remote_group(inter, &remote_group);
  int ranks[16], translated[16];
  for (int i = 0; i < 16; ++i) ranks[i] = i;
  MPI_Group_translate_ranks(remote_group, remote_size, ranks, world_group, translated);
  printf("world %d: remote group", world_rank);
  for (int i = 0; i < remote_size; ++i) printf(" %d", translated[i]);
  MPI_Group_translate_ranks(local_group, size, ranks, world_group, translated);
  printf(", local group");
  for (int i = 0; i < size; ++i) printf(" %d", translated[i]);
  printf("\n");

  // Every member sends to every remote member; receives from specific
  // sources first, then from MPI_ANY_SOURCE.
  for (int j = 0; j < remote_size; ++j) {
    int value = world_rank * 100 + j;
    MPI_Send(&value, 1, MPI_INT, j, 5, inter);
  }
  for (int j = 0; j < remote_size; ++j) {
    int value;
    MPI_Status status;
    MPI_Recv(&value, 1, MPI_INT, j, 5, inter, &status);
    printf("world %d: from remote %d got %d (source %d)\n", world_rank, j, value,
           status.MPI_SOURCE);
  }
  for (int j = 0; j < remote_size; ++j) {
    int value = world_rank * 1000 + j;
    MPI_Send(&value, 1, MPI_INT, j, 6, inter);
  }
  int sum = 0, sources = 0;
  for (int j = 0; j < remote_size; ++j) {
    int value;
    MPI_Status status;
    MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 6, inter, &status);
    sum += value;
    sources += 1 << status.MPI_SOURCE;
  }
  printf("world %d: any-source sum %d, sources mask %d\n", world_rank, sum, sources);

  // Rank r pairs with remote rank r when it exists.
  if (rank < remote_size) {
    int out = world_rank, in = -1;
    MPI_Status status;
    MPI_Sendrecv(&out, 1, MPI_INT, rank, 9, &in, 1, MPI_INT, rank, 9, inter, &status);
    printf("world %d: sendrecv with remote %d got %d\n", world_rank, status.MPI_SOURCE, in);
    double* big_out = malloc(BIG * sizeof(double));
    double* big_in = malloc(BIG * sizeof(double));
    for (int i = 0; i < BIG; ++i) big_out[i] = world_rank + i * 0.5;
    MPI_Request requests[2];
    MPI_Irecv(big_in, BIG, MPI_DOUBLE, rank, 10, inter, &requests[0]);
    MPI_Issend(big_out, BIG, MPI_DOUBLE, rank, 10, inter, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    printf("world %d: rendezvous got %.1f .. %.1f\n", world_rank, big_in[0], big_in[BIG - 1]);
    free(big_out);
    free(big_in);
  }

  // A duplicate: its messages never match receives on the original.
  MPI_Comm dup;
  int result;
  MPI_Comm_dup(inter, &dup);
  MPI_Comm_compare(inter, dup, &result);
  MPI_Comm_test_inter(dup, &flag);
  printf("world %d: dup congruent %d, inter %d\n", world_rank, result == MPI_CONGRUENT, flag);
  if (rank == 0) {
    int on_dup = 1, on_inter = 2;
    MPI_Send(&on_dup, 1, MPI_INT, 0, 3, dup);
    MPI_Send(&on_inter, 1, MPI_INT, 0, 3, inter);
    int a, b;
    MPI_Recv(&a, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
    MPI_Recv(&b, 1, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE);
    printf("world %d: on inter %d, on dup %d\n", world_rank, a, b);
  }
  MPI_Comm_compare(inter, local, &result);
  printf("world %d: inter vs local unequal %d\n", world_rank, result == MPI_UNEQUAL);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Group_free(&world_group);
  MPI_Group_free(&local_group);
  MPI_Group_free(&remote_group);
  MPI_Finalize();
  return 0;
}

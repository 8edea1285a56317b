// Freeing a derived datatype or a communicator while nonblocking calls and
// a collective's readers still use it: MPI lets the calls complete as if
// nothing was freed, which the runtime's requests and collective slots
// must keep alive. Every rank sends a strided vector of ints to the next
// over a duplicated communicator, frees both before waiting, and then
// gathers strided data with a datatype the root frees right after.
// RUN: %mpi-diff %s %t 2 3 4
// With a checkpoint at every barrier where no message is in flight (others are skipped):
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t.checkpoints 2 4
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype strided;
  MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);

  int out[8], in[8] = {0};
  for (int i = 0; i < 8; ++i) out[i] = rank * 100 + i;
  MPI_Request requests[2];
  MPI_Irecv(in, 1, strided, (rank + size - 1) % size, 7, dup, &requests[0]);
  MPI_Isend(out, 1, strided, (rank + 1) % size, 7, dup, &requests[1]);
  MPI_Type_free(&strided);
  MPI_Comm_free(&dup);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  printf("rank %d received", rank);
  for (int i = 0; i < 8; ++i) printf(" %d", in[i]);
  printf("\n");

  MPI_Datatype pairs;
  MPI_Type_vector(2, 1, 3, MPI_INT, &pairs);
  MPI_Type_commit(&pairs);
  int gathered[64] = {0};
  MPI_Gather(out, 1, pairs, gathered, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Type_free(&pairs);
  if (rank == 0) {
    printf("gathered");
    for (int i = 0; i < 2 * size; ++i) printf(" %d", gathered[i]);
    printf("\n");
  }
  MPI_Finalize();
  return 0;
}

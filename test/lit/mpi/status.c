// Statuses: MPI_Get_count with a partial element (MPI_UNDEFINED),
// MPI_Get_elements, receives from MPI_PROC_NULL, and MPI_Wait on a null
// request giving an empty status.
// RUN: %mpi-diff %s %t 2
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    char bytes[7] = "abcdef";
    MPI_Send(bytes, 6, MPI_CHAR, 1, 11, MPI_COMM_WORLD);
    MPI_Send(bytes, 4, MPI_CHAR, 1, 12, MPI_COMM_WORLD);
  } else {
    int words[4];
    MPI_Status status;
    MPI_Recv(words, 4, MPI_INT, 0, 11, MPI_COMM_WORLD, &status);
    int count, elements;
    MPI_Get_count(&status, MPI_INT, &count);
    MPI_Get_elements(&status, MPI_SHORT, &elements);
    printf("6 bytes as ints undefined %d, as shorts %d\n", count == MPI_UNDEFINED, elements);
    MPI_Recv(words, 4, MPI_INT, 0, 12, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    printf("4 bytes as ints %d, tag %d, source %d\n", count, status.MPI_TAG, status.MPI_SOURCE);
  }
  int nothing = 42;
  MPI_Status status;
  MPI_Recv(&nothing, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &status);
  int count;
  MPI_Get_count(&status, MPI_INT, &count);
  printf("rank %d proc_null: source is proc_null %d, tag is any %d, count %d, data %d\n", rank,
         status.MPI_SOURCE == MPI_PROC_NULL, status.MPI_TAG == MPI_ANY_TAG, count, nothing);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Wait(&request, &status);
  printf("rank %d null wait: source any %d tag any %d\n", rank, status.MPI_SOURCE == MPI_ANY_SOURCE,
         status.MPI_TAG == MPI_ANY_TAG);
  MPI_Send(&nothing, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}

// The profiling interface (MPI-4.0 §15.2): the program defines its own
// MPI_Send and MPI_Allreduce, which count their calls and reach the
// library through PMPI_Send and PMPI_Allreduce. Every call the program
// makes goes through the wrappers, none that the library makes internally
// does, and a direct PMPI_Allreduce call bypasses the count. MPI_Barrier,
// which is not wrapped, is called under both names. MPI_File_delete, which
// the guest library defines itself, is wrapped as well.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

static int sends, allreduces, deletes;

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) {
  ++sends;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  ++allreduces;
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_File_delete(const char* filename, MPI_Info info) {
  ++deletes;
  return PMPI_File_delete(filename, info);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  // Three rounds around the ring.
  int token = rank;
  for (int round = 0; round < 3; ++round) {
    int incoming;
    if (rank % 2 == 0) {
      MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, round, MPI_COMM_WORLD);
      MPI_Recv(&incoming, 1, MPI_INT, (rank + size - 1) % size, round, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&incoming, 1, MPI_INT, (rank + size - 1) % size, round, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, round, MPI_COMM_WORLD);
    }
    token = incoming + 10;
  }

  // A collective built on point-to-point inside the library does not call
  // the program's MPI_Send.
  int sum = 0, max = 0, value = rank + 1;
  MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Bcast(&sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int direct = 0;
  PMPI_Allreduce(&value, &direct, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  PMPI_Barrier(MPI_COMM_WORLD);

  // Deleting a file that does not exist fails; only the count matters.
  int error = MPI_File_delete("profiling-interface-no-such-file", MPI_INFO_NULL);

  printf("rank %d: token %d sum %d max %d product %d delete failed %d\n", rank, token, sum, max,
         direct, error != MPI_SUCCESS);
  printf("rank %d: MPI_Send called %d times, MPI_Allreduce %d times, MPI_File_delete %d times\n",
         rank, sends, allreduces, deletes);
  MPI_Finalize();
  return 0;
}

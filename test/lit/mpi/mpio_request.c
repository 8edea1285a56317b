// ROMIO's pre-MPI-2 names for file requests, which OpenMPI and MPICH still
// declare: MPIO_Request, MPIO_Wait and MPIO_Test on the requests of
// MPI_File_iwrite_at and MPI_File_iread_at (MPIO_USES_MPI_REQUEST, which
// MPICH defines and OpenMPI does not, is left out). Each rank writes its block through one
// and reads its neighbour's back through the other.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %mpi-diff --run-option=--dir --run-option=%t.d --arg %t.d/data %s %t 2 3
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_File file;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file);
  int block[4] = {rank * 10, rank * 10 + 1, rank * 10 + 2, rank * 10 + 3};
  MPIO_Request request;
  MPI_Status status;
  MPI_File_iwrite_at(file, rank * sizeof(block), block, 4, MPI_INT, &request);
  MPIO_Wait(&request, &status);
  MPI_File_sync(file);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(file);
  int got[4] = {0}, done = 0, count;
  int right = (rank + 1) % size;
  MPI_File_iread_at(file, right * sizeof(got), got, 4, MPI_INT, &request);
  while (!done) MPIO_Test(&request, &done, &status);
  MPI_Get_count(&status, MPI_INT, &count);
  printf("rank %d: read %d ints from rank %d: %d %d %d %d\n", rank, count, right, got[0], got[1],
         got[2], got[3]);
  MPI_File_close(&file);
  MPI_Finalize();
  return 0;
}

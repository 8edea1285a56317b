// Derived datatypes: a matrix column with MPI_Type_vector, received into a
// contiguous row; MPI_Type_contiguous, MPI_Type_indexed,
// MPI_Type_create_indexed_block, MPI_Type_create_hvector; sizes and extents.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>

#define N 6

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double matrix[N][N];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) matrix[i][j] = rank == 0 ? i * 10 + j : -1;
  MPI_Datatype column;
  MPI_Type_vector(N, 1, N, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  int size;
  MPI_Aint lb, extent;
  MPI_Type_size(column, &size);
  MPI_Type_get_extent(column, &lb, &extent);
  if (rank == 0) printf("column size %d lb %ld extent %ld\n", size, (long)lb, (long)extent);
  // Consecutive columns need the column type resized to one element.
  MPI_Datatype columns;
  MPI_Type_create_resized(column, 0, sizeof(double), &columns);
  MPI_Type_commit(&columns);
  if (rank == 0) {
    MPI_Send(&matrix[0][2], 1, column, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&matrix[0][0], 2, columns, 1, 1, MPI_COMM_WORLD);
  } else if (rank == 1) {
    double row[2 * N];
    MPI_Status status;
    MPI_Recv(row, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &status);
    int count;
    MPI_Get_count(&status, column, &count);
    printf("column 2 as a row:");
    for (int i = 0; i < N; ++i) printf(" %g", row[i]);
    printf(" (count %d)\n", count);
    MPI_Recv(&matrix[0][3], 2, columns, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("columns 3,4 after receiving two columns:");
    for (int i = 0; i < N; ++i) printf(" %g/%g", matrix[i][3], matrix[i][4]);
    printf("\n");
  }

  int blocklens[3] = {2, 1, 3}, displs[3] = {0, 4, 7};
  MPI_Datatype indexed, contiguous, block, hvector;
  MPI_Type_indexed(3, blocklens, displs, MPI_INT, &indexed);
  MPI_Type_commit(&indexed);
  MPI_Type_contiguous(4, MPI_SHORT, &contiguous);
  MPI_Type_commit(&contiguous);
  int bdispls[2] = {1, 5};
  MPI_Type_create_indexed_block(2, 2, bdispls, MPI_INT, &block);
  MPI_Type_commit(&block);
  MPI_Type_create_hvector(3, 1, 12, MPI_INT, &hvector);
  MPI_Type_commit(&hvector);
  MPI_Datatype types[4] = {indexed, contiguous, block, hvector};
  const char* names[4] = {"indexed", "contiguous", "indexed_block", "hvector"};
  for (int t = 0; t < 4; ++t) {
    MPI_Type_size(types[t], &size);
    MPI_Type_get_extent(types[t], &lb, &extent);
    int data[12];
    for (int i = 0; i < 12; ++i) data[i] = rank == 0 ? i + 1 : 0;
    MPI_Bcast(data, 1, types[t], 0, MPI_COMM_WORLD);
    if (rank == 1) {
      printf("%s size %d extent %ld:", names[t], size, (long)extent);
      for (int i = 0; i < 12; ++i) printf(" %d", data[i]);
      printf("\n");
    }
    MPI_Type_free(&types[t]);
  }
  MPI_Type_free(&columns);
  MPI_Type_free(&column);
  MPI_Finalize();
  return 0;
}

// Cartesian halo exchange: MPI_Dims_create, MPI_Cart_create (periodic in x
// only), MPI_Cart_shift, MPI_Sendrecv of boundary rows and of a strided
// boundary column, MPI_Cart_coords/rank/get and MPI_Cart_sub.
// RUN: %mpi-diff %s %t 1 2 3 4 6 8
#include <mpi.h>
#include <stdio.h>

#define NX 4
#define NY 5

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_rank(grid, &rank);
  int coords[2];
  MPI_Cart_coords(grid, rank, 2, coords);
  int check;
  MPI_Cart_rank(grid, coords, &check);
  int up, down, left, right;
  MPI_Cart_shift(grid, 0, 1, &up, &down);
  MPI_Cart_shift(grid, 1, 1, &left, &right);
  printf("rank %d dims %dx%d coords (%d,%d) check %d up %d down %d left %d right %d\n", rank,
         dims[0], dims[1], coords[0], coords[1], check, up, down, left, right);

  // Local block with a one-cell halo.
  int field[NX + 2][NY + 2];
  for (int i = 0; i < NX + 2; ++i)
    for (int j = 0; j < NY + 2; ++j)
      field[i][j] = (i == 0 || j == 0 || i == NX + 1 || j == NY + 1) ? -1 : rank * 100 + i * 10 + j;
  MPI_Datatype column;
  MPI_Type_vector(NX, 1, NY + 2, MPI_INT, &column);
  MPI_Type_commit(&column);
  MPI_Sendrecv(&field[1][1], NY, MPI_INT, up, 0, &field[NX + 1][1], NY, MPI_INT, down, 0, grid,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&field[NX][1], NY, MPI_INT, down, 1, &field[0][1], NY, MPI_INT, up, 1, grid,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&field[1][1], 1, column, left, 2, &field[1][NY + 1], 1, column, right, 2, grid,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&field[1][NY], 1, column, right, 3, &field[1][0], 1, column, left, 3, grid,
               MPI_STATUS_IGNORE);
  long halo = 0;
  for (int j = 1; j <= NY; ++j) halo += field[0][j] + 3 * field[NX + 1][j];
  for (int i = 1; i <= NX; ++i) halo += 5 * field[i][0] + 7 * field[i][NY + 1];
  printf("rank %d halo checksum %ld\n", rank, halo);

  int gdims[2], gperiods[2], gcoords[2];
  MPI_Cart_get(grid, 2, gdims, gperiods, gcoords);
  int remain[2] = {0, 1};
  MPI_Comm row;
  MPI_Cart_sub(grid, remain, &row);
  int rowRank, rowSize, rowSum;
  MPI_Comm_rank(row, &rowRank);
  MPI_Comm_size(row, &rowSize);
  MPI_Allreduce(&rank, &rowSum, 1, MPI_INT, MPI_SUM, row);
  printf("rank %d periods %d%d row rank %d of %d row sum %d\n", rank, gperiods[0], gperiods[1],
         rowRank, rowSize, rowSum);
  int dims3[3] = {0, 2, 0};
  if (size % 2 == 0) {
    MPI_Dims_create(size * 6, 3, dims3);
    if (rank == 0) printf("dims_create(%d, 3, {0,2,0}) = %d %d %d\n", size * 6, dims3[0], dims3[1], dims3[2]);
  }
  MPI_Type_free(&column);
  MPI_Comm_free(&row);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}

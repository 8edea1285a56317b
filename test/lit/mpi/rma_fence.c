// One-sided communication in fence epochs: MPI_Win_create and
// MPI_Win_allocate, MPI_Put into the right neighbour, MPI_Get from the left,
// MPI_Accumulate (sum and max) from everyone onto rank 0.
// RUN: %mpi-diff %s %t 2 3 4 8
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int window[4] = {-1, -1, -1, -1};
  MPI_Win win;
  MPI_Win_create(window, sizeof(window), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  int mine[2] = {rank * 10, rank * 10 + 1};
  MPI_Put(mine, 2, MPI_INT, (rank + 1) % size, 1, 2, MPI_INT, win);
  MPI_Win_fence(0, win);
  printf("rank %d window after put: %d %d %d %d\n", rank, window[0], window[1], window[2],
         window[3]);
  int fetched[2];
  MPI_Get(fetched, 2, MPI_INT, (rank + size - 1) % size, 1, 2, MPI_INT, win);
  MPI_Win_fence(0, win);
  printf("rank %d got %d %d\n", rank, fetched[0], fetched[1]);
  MPI_Win_fence(0, win);
  int one = rank + 1;
  MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
  MPI_Accumulate(&rank, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_MAX, win);
  MPI_Win_fence(0, win);
  if (rank == 0) printf("accumulated sum %d max %d\n", window[0], window[3]);
  MPI_Win_free(&win);

  double* shared;
  MPI_Win_allocate(3 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &shared,
                   &win);
  for (int i = 0; i < 3; ++i) shared[i] = 0;
  MPI_Win_fence(0, win);
  double value = 0.5 * rank;
  for (int target = 0; target < size; ++target)
    MPI_Accumulate(&value, 1, MPI_DOUBLE, target, rank % 3, 1, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_fence(0, win);
  printf("rank %d allocated window %.1f %.1f %.1f\n", rank, shared[0], shared[1], shared[2]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}

// Post-start-complete-wait synchronisation with groups: a ring where each
// rank exposes its window to its left neighbour and puts into its right
// one (several epochs in a row), a star where rank 0 exposes its window to
// every other rank at once and ends the epoch with MPI_Win_test, and an
// exposure to the empty group.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int cells[8] = {0};
  MPI_Win win;
  MPI_Win_create(cells, sizeof(cells), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, left_group, right_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Group_incl(world, 1, &left, &left_group);
  MPI_Group_incl(world, 1, &right, &right_group);

  for (int epoch = 0; epoch < 3; ++epoch) {
    MPI_Win_post(left_group, 0, win);
    MPI_Win_start(right_group, 0, win);
    int value = 100 * epoch + rank;
    MPI_Put(&value, 1, MPI_INT, right, epoch, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    printf("rank %d epoch %d received %d\n", rank, epoch, cells[epoch]);
  }

  // Star: rank 0 exposes to all others; each adds into cell 4 and reads
  // cell 3 of rank 0.
  if (rank == 0) {
    MPI_Group others;
    int zero = 0;
    MPI_Group_excl(world, 1, &zero, &others);
    cells[3] = 42;
    MPI_Win_post(others, 0, win);
    int flag = 0;
    while (!flag) MPI_Win_test(win, &flag);
    printf("star total %d\n", cells[4]);
    MPI_Group_free(&others);
  } else {
    MPI_Group root_group;
    int zero = 0, add = rank * 10, seen = -1;
    MPI_Group_incl(world, 1, &zero, &root_group);
    MPI_Win_start(root_group, 0, win);
    MPI_Accumulate(&add, 1, MPI_INT, 0, 4, 1, MPI_INT, MPI_SUM, win);
    MPI_Get(&seen, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_complete(win);
    printf("rank %d read %d from the star's centre\n", rank, seen);
    MPI_Group_free(&root_group);
  }

  // An empty exposure and an empty access epoch end at once.
  MPI_Win_post(MPI_GROUP_EMPTY, 0, win);
  MPI_Win_start(MPI_GROUP_EMPTY, 0, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  printf("rank %d empty epoch done\n", rank);

  MPI_Group_free(&left_group);
  MPI_Group_free(&right_group);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}

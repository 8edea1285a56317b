// An MPI_Put from rank 0 that runs past the end of the region rank 1 has
// attached to a dynamic window. On one host the put itself returns
// MPI_ERR_RMA_RANGE; with rank 1 on another host, only rank 1's host can
// tell, after the put has returned, so the job must end with that error
// class and a message naming both ranks rather than wait in the fence.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int slots[4] = {0, 0, 0, 0};
  MPI_Win_attach(win, slots, sizeof(slots));
  MPI_Aint mine, addresses[16];
  MPI_Get_address(slots, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD);
  int values[2] = {1, 2};
  MPI_Win_fence(0, win);
  if (rank == 0)
    MPI_Put(values, 2, MPI_INT, 1, MPI_Aint_add(addresses[1], 3 * sizeof(int)), 2, MPI_INT,
            win);
  MPI_Win_fence(0, win);
  printf("rank %d passed the fence, slots %d %d %d %d\n", rank, slots[0], slots[1], slots[2],
         slots[3]);
  MPI_Win_detach(win, slots);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}

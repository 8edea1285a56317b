// Accumulates that move no bytes are no-ops whatever their datatype: MPI_SUM
// on a zero-size derived type (contiguous 0 of MPI_INT, which has no
// elements), as MPICH's rma/badrma does, in MPI_Accumulate,
// MPI_Get_accumulate and MPI_Raccumulate, next to one that moves data. An
// op that is not an op is still refused.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

static const char* outcome(int code) {
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_SUCCESS ? "ok" : cls == MPI_ERR_OP ? "MPI_ERR_OP" : "another error";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int window[4] = {rank, rank, rank, rank};
  MPI_Win win;
  MPI_Win_create(window, sizeof window, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Datatype empty;
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  int origin[4] = {10, 20, 30, 40}, result[4] = {-1, -1, -1, -1};
  int target = (rank + 1) % size;
  MPI_Win_fence(0, win);
  printf("rank %d: accumulate of an empty type: %s\n", rank,
         outcome(MPI_Accumulate(origin, 1, empty, target, 0, 1, empty, MPI_SUM, win)));
  printf("rank %d: accumulate of no ints: %s\n", rank,
         outcome(MPI_Accumulate(origin, 0, MPI_INT, target, 0, 0, MPI_INT, MPI_BAND, win)));
  printf("rank %d: accumulate of an empty type with MPI_OP_NULL: %s\n", rank,
         outcome(MPI_Accumulate(origin, 1, empty, target, 0, 1, empty, MPI_OP_NULL, win)));
  printf("rank %d: get_accumulate of an empty type: %s\n", rank,
         outcome(MPI_Get_accumulate(origin, 2, empty, result, 1, empty, target, 1, 3, empty,
                                    MPI_PROD, win)));
  printf("rank %d: accumulate of two ints: %s\n", rank,
         outcome(MPI_Accumulate(origin, 2, MPI_INT, target, 1, 2, MPI_INT, MPI_SUM, win)));
  MPI_Win_fence(0, win);
  MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
  MPI_Request request;
  printf("rank %d: raccumulate of an empty type: %s\n", rank,
         outcome(MPI_Raccumulate(origin, 1, empty, target, 0, 1, empty, MPI_MAX, win, &request)));
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Win_unlock(target, win);
  MPI_Win_fence(0, win);
  printf("rank %d: window %d %d %d %d, result untouched %d\n", rank, window[0], window[1],
         window[2], window[3], result[0] == -1);
  MPI_Type_free(&empty);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}

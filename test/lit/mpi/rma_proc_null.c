// Every one-sided call takes MPI_PROC_NULL as its target and does nothing
// (MPI-3.1 11.3): no byte moves, the call succeeds, a request-based one
// hands back a request that completes at once. Buffers are filled with
// markers that must survive, and the window must be untouched. Run under
// MPI_ERRORS_RETURN, so a refusal prints its error class instead of ending
// the job. (A lock of MPI_PROC_NULL, which MPICH's rma/rmanull takes, is
// left out: OpenMPI 4.1 refuses it with MPI_ERR_RANK.)
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

static void check(const char* what, int err) {
  if (err != MPI_SUCCESS) {
    int errorClass;
    MPI_Error_class(err, &errorClass);
    printf("%s failed with class %d\n", what, errorClass);
  }
}

static void checkRequest(const char* what, MPI_Request* request) {
  MPI_Status status;
  int flag = 0;
  check(what, MPI_Test(request, &flag, &status));
  printf("%s request done %d null %d\n", what, flag, *request == MPI_REQUEST_NULL);
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int* cells;
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cells, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  for (int i = 0; i < 4; ++i) cells[i] = 70 + i;
  MPI_Barrier(MPI_COMM_WORLD);

  int origin[4] = {1, 2, 3, 4}, result[4] = {-1, -1, -1, -1}, compare = 70;
  MPI_Request request;
  MPI_Win_fence(0, win);
  check("Put", MPI_Put(origin, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win));
  check("Get", MPI_Get(result, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win));
  check("Accumulate",
        MPI_Accumulate(origin, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win));
  check("Get_accumulate", MPI_Get_accumulate(origin, 4, MPI_INT, result, 4, MPI_INT,
                                             MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win));
  check("Fetch_and_op",
        MPI_Fetch_and_op(origin, result, MPI_INT, MPI_PROC_NULL, 0, MPI_SUM, win));
  check("Compare_and_swap",
        MPI_Compare_and_swap(origin, &compare, result, MPI_INT, MPI_PROC_NULL, 0, win));
  MPI_Win_fence(0, win);

  check("Win_lock", MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  check("Rput", MPI_Rput(origin, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &request));
  checkRequest("Rput", &request);
  check("Rget", MPI_Rget(result, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &request));
  checkRequest("Rget", &request);
  check("Raccumulate", MPI_Raccumulate(origin, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT,
                                       MPI_REPLACE, win, &request));
  checkRequest("Raccumulate", &request);
  check("Rget_accumulate",
        MPI_Rget_accumulate(origin, 4, MPI_INT, result, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT,
                            MPI_SUM, win, &request));
  checkRequest("Rget_accumulate", &request);
  check("Win_unlock", MPI_Win_unlock(0, win));

  // A rank out of range is still refused.
  int err = MPI_Put(origin, 1, MPI_INT, 99, 0, 1, MPI_INT, win);
  int errorClass;
  MPI_Error_class(err, &errorClass);
  printf("rank %d: rank 99 refused %d\n", rank, errorClass == MPI_ERR_RANK);

  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: window %d %d %d %d result %d %d %d %d\n", rank, cells[0], cells[1], cells[2],
         cells[3], result[0], result[1], result[2], result[3]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}

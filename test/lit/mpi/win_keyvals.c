// Attributes on windows: keyvals from MPI_Win_create_keyval carry values
// that MPI_Win_get_attr reads beside the predefined MPI_WIN_DISP_UNIT;
// replacing, deleting and MPI_Win_free run the delete callback with the
// window, value and extra state; a keyval made with MPI_WIN_NULL_DELETE_FN
// runs nothing, and a freed keyval is MPI_KEYVAL_INVALID.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

static int rank;
static MPI_Win win;

static int report_delete(MPI_Win w, int keyval, void* value, void* extra) {
  (void)keyval;
  printf("rank %d: delete on %s, value %d, extra %d\n", rank, w == win ? "win" : "?",
         *(int*)value, *(int*)extra);
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int memory[4] = {0};
  MPI_Win_create(memory, sizeof memory, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

  static int extra = 5, first = 10, second = 20, silent = 30;
  int reported, quiet;
  MPI_Win_create_keyval(MPI_WIN_DUP_FN, report_delete, &reported, &extra);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &quiet, NULL);
  int *value = NULL, flag = -1;
  MPI_Win_get_attr(win, reported, &value, &flag);
  printf("rank %d: before set: flag %d\n", rank, flag);
  MPI_Win_set_attr(win, reported, &first);
  MPI_Win_set_attr(win, quiet, &silent);
  MPI_Win_set_attr(win, reported, &second);  // deletes the first value
  MPI_Win_get_attr(win, reported, &value, &flag);
  printf("rank %d: reported: flag %d value %d\n", rank, flag, *value);
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &value, &flag);
  printf("rank %d: disp unit: flag %d value %d\n", rank, flag, *value);
  MPI_Win_delete_attr(win, quiet);
  MPI_Win_get_attr(win, quiet, &value, &flag);
  printf("rank %d: quiet after delete: flag %d\n", rank, flag);
  MPI_Win_set_attr(win, quiet, &silent);
  MPI_Win_free_keyval(&reported);
  printf("rank %d: freed keyval invalid %d\n", rank, reported == MPI_KEYVAL_INVALID);
  MPI_Win_free(&win);  // runs the delete callback of the second value
  printf("rank %d: window freed\n", rank);
  MPI_Win_free_keyval(&quiet);
  MPI_Finalize();
  return 0;
}

// MPI_Finalize deletes the attributes on MPI_COMM_SELF first, newest set
// first (a replaced value counts as set when replaced), while MPI_Finalized
// still says false in their callbacks (MPI-4.0 section 11.2.4); then those on
// MPI_COMM_WORLD, which OpenMPI deletes once MPI_Finalized says true. A
// freed keyval's attributes still get their callbacks. MPI_Comm_free runs
// the callbacks newest set first too, as OpenMPI does.
// Each line carries the rank's step count, so sorted lines keep the order.
// RUN: %mpi-diff %s %t 1 2 3
#include <mpi.h>
#include <stdio.h>

static int rank, step;

static int on_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval;
  int finalized;
  MPI_Finalized(&finalized);
  const char* on = comm == MPI_COMM_SELF    ? "MPI_COMM_SELF"
                   : comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
                                            : "another communicator";
  printf("%d step %d: delete %s on %s: value %d, finalized %d\n", rank, ++step,
         (const char*)extra, on, *(int*)value, finalized);
  fflush(stdout);
  return MPI_SUCCESS;
}

static int values[6] = {10, 20, 30, 40, 50, 60};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int first, second, third, fourth;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &first, "first");
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &second, "second");
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &third, "third");
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &fourth, "fourth");
  MPI_Comm_set_attr(MPI_COMM_WORLD, second, &values[0]);
  MPI_Comm_set_attr(MPI_COMM_SELF, third, &values[1]);
  MPI_Comm_set_attr(MPI_COMM_WORLD, first, &values[2]);
  MPI_Comm_set_attr(MPI_COMM_SELF, first, &values[3]);
  MPI_Comm_set_attr(MPI_COMM_SELF, second, &values[4]);
  MPI_Comm_set_attr(MPI_COMM_SELF, third, &values[5]);
  MPI_Comm_set_attr(MPI_COMM_SELF, fourth, &values[0]);
  MPI_Comm_delete_attr(MPI_COMM_SELF, fourth);

  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  MPI_Comm_set_attr(other, fourth, &values[1]);
  MPI_Comm_set_attr(other, second, &values[2]);
  MPI_Comm_set_attr(other, third, &values[3]);
  MPI_Comm_free(&other);

  MPI_Comm_free_keyval(&first);
  printf("%d step %d: finalizing\n", rank, ++step);
  fflush(stdout);
  MPI_Finalize();
  printf("%d step %d: finalized\n", rank, ++step);
  return 0;
}

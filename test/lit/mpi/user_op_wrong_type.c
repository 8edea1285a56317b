// A user op is called by the runtime, not by a call_indirect, so the runtime
// makes the check one would make: a function whose wasm type is not
// MPI_User_function's, (i32, i32, i32, i32) -> (), is refused with MPI_ERR_OP
// and never called, in blocking, nonblocking and local reductions; the same
// reduction with a function of the right type still works.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O1 %s -o %t/op.wasm
// RUN: %synergy-run -np 2 %t/op.wasm return | FileCheck %s --check-prefix=RETURN
// RUN: not %synergy-run -np 2 %t/op.wasm fatal > %t/out 2> %t/err
// RUN: FileCheck %s --check-prefix=FATAL < %t/err
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t/out
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int wrong_calls;

// Two parameters and a result: a different wasm type.
static int wrong_type(int* in, int* inout) {
  ++wrong_calls;
  *inout += *in;
  return 7;
}

static void right_type(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

static const char* class_name(int error) {
  int error_class;
  MPI_Error_class(error, &error_class);
  return error_class == MPI_ERR_OP ? "MPI_ERR_OP" : error == MPI_SUCCESS ? "MPI_SUCCESS" : "other";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
  if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Op bad, good;
  MPI_Op_create((MPI_User_function*)(void*)wrong_type, 1, &bad);
  MPI_Op_create(right_type, 1, &good);
  int in[3] = {rank + 1, rank + 2, rank + 3}, out[3] = {-1, -1, -1};
  int error = MPI_Allreduce(in, out, 3, MPI_INT, bad, MPI_COMM_WORLD);
  if (rank == 0) printf("Allreduce: %s, out %d\n", class_name(error), out[0]);
  MPI_Request request;
  error = MPI_Iallreduce(in, out, 3, MPI_INT, bad, MPI_COMM_WORLD, &request);
  if (error == MPI_SUCCESS) error = MPI_Wait(&request, MPI_STATUS_IGNORE);
  if (rank == 0) printf("Iallreduce: %s\n", class_name(error));
  int local[3] = {1, 1, 1};
  error = MPI_Reduce_local(in, local, 3, MPI_INT, bad);
  if (rank == 0) printf("Reduce_local: %s, local %d\n", class_name(error), local[0]);
  error = MPI_Allreduce(in, out, 3, MPI_INT, good, MPI_COMM_WORLD);
  if (rank == 0) printf("good Allreduce: %s, out %d %d %d\n", class_name(error), out[0], out[1], out[2]);
  int total_wrong_calls = -1;
  MPI_Reduce(&wrong_calls, &total_wrong_calls, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("wrongly typed op called %d times\n", total_wrong_calls);
  MPI_Op_free(&bad);
  MPI_Op_free(&good);
  MPI_Finalize();
  return 0;
}
// RETURN: Allreduce: MPI_ERR_OP, out -1
// RETURN: Iallreduce: MPI_ERR_OP
// RETURN: Reduce_local: MPI_ERR_OP, local 1
// RETURN: good Allreduce: MPI_SUCCESS, out 3 5 7
// RETURN: wrongly typed op called 0 times
// FATAL: MPI_Allreduce{{.*}}user op is not a function of MPI_User_function's type
// NOTHING-NOT: {{.}}

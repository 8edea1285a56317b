// Hostile handles to the matched-probe, cancellation, status and
// generalized-request calls are MPI errors, never a crash, and touch no
// buffer: a forged or already received message handle, a receive of a
// matched message with a negative count or a buffer outside memory (the
// message stays matched for a correct receive), MPI_Grequest_complete on a
// request that is not a generalized one or twice, a status pointer outside
// memory. With MPI_ERRORS_ARE_FATAL the job ends with one line naming the
// call and the reason; a generalized request whose callback is not a
// function of the right type traps when it is started, before any call.
// Two ranks each waiting in MPI_Mprobe for the other are reported as a
// deadlock naming the source and tag each waits for.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O1 %s -o %t/errors.wasm
// RUN: %synergy-run -np 2 %t/errors.wasm return | FileCheck %s --check-prefix=RETURN
// RUN: not %synergy-run -np 2 %t/errors.wasm fatal 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not %synergy-run -np 1 %t/errors.wasm callback > %t/out 2> %t/err
// RUN: FileCheck %s --check-prefix=CALLBACK < %t/err
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t/out
// RUN: not %synergy-run -np 2 %t/errors.wasm deadlock 2>&1 | FileCheck %s --check-prefix=DEADLOCK
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;

static void expect(const char* what, int error) {
  char text[MPI_MAX_ERROR_STRING];
  int length, error_class;
  MPI_Error_class(error, &error_class);
  MPI_Error_string(error_class, text, &length);
  printf("rank %d: %s: %s\n", rank, what, error == MPI_SUCCESS ? "no error" : text);
}

static int query(void* state, MPI_Status* status) {
  (void)state;
  (void)status;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argc > 1 ? argv[1] : "return";
  if (strcmp(mode, "callback") == 0) {
    // A data address passed as the cancel function.
    MPI_Request request;
    static int not_a_function;
    MPI_Grequest_start(query, NULL, (MPI_Grequest_cancel_function*)&not_a_function, NULL,
                       &request);
    printf("started a request with a bad callback\n");
    MPI_Finalize();
    return 0;
  }
  if (strcmp(mode, "deadlock") == 0) {
    MPI_Message message;
    MPI_Mprobe(1 - rank, 9, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
    printf("rank %d probed a message nobody sent\n", rank);
    MPI_Finalize();
    return 0;
  }
  if (strcmp(mode, "fatal") == 0) {
    if (rank == 1) {
      int value = 0;
      MPI_Message forged = 12345;
      MPI_Mrecv(&value, 1, MPI_INT, &forged, MPI_STATUS_IGNORE);
      printf("rank 1 went on after a forged message handle\n");
    }
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rank == 0) {
    int value = 7;
    MPI_Send(&value, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
  } else {
    int value = -1;
    MPI_Message forged = 12345, message;
    expect("Mrecv of a forged message handle", MPI_Mrecv(&value, 1, MPI_INT, &forged, NULL));
    MPI_Mprobe(0, 3, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
    MPI_Message kept = message;
    expect("Mrecv with a negative count", MPI_Mrecv(&value, -1, MPI_INT, &message, NULL));
    expect("Mrecv into a buffer outside memory",
           MPI_Mrecv((void*)0xfffffff0u, 4, MPI_INT, &message, NULL));
    printf("rank 1: handle kept after the failed receives %d, value %d\n", message == kept,
           value);
    expect("Mrecv of the matched message", MPI_Mrecv(&value, 1, MPI_INT, &message, NULL));
    printf("rank 1: received %d, handle now MPI_MESSAGE_NULL %d\n", value,
           message == MPI_MESSAGE_NULL);
    expect("Mrecv of a handle already received", MPI_Mrecv(&value, 1, MPI_INT, &kept, NULL));
  }
  MPI_Request ordinary, generalized;
  int value = 0;
  MPI_Irecv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &ordinary);
  expect("Grequest_complete of an ordinary request", MPI_Grequest_complete(ordinary));
  expect("Grequest_complete of a forged handle", MPI_Grequest_complete(999));
  MPI_Grequest_start(query, NULL, NULL, NULL, &generalized);
  expect("Grequest_complete", MPI_Grequest_complete(generalized));
  expect("Grequest_complete again", MPI_Grequest_complete(generalized));
  MPI_Wait(&generalized, MPI_STATUS_IGNORE);
  MPI_Wait(&ordinary, MPI_STATUS_IGNORE);
  int flag;
  expect("Test_cancelled of a status outside memory",
         MPI_Test_cancelled((MPI_Status*)0xfffffff8u, &flag));
  expect("Get_count of a status outside memory",
         MPI_Get_count((MPI_Status*)0xfffffff0u, MPI_INT, &flag));
  expect("Status_set_elements of an invalid datatype",
         MPI_Status_set_elements((MPI_Status*)&flag - 8, 77777, 1));
  MPI_Finalize();
  return 0;
}

// RETURN-DAG: rank 1: Mrecv of a forged message handle: MPI_ERR_REQUEST: invalid request
// RETURN-DAG: rank 1: Mrecv with a negative count: MPI_ERR_COUNT: invalid count argument
// RETURN-DAG: rank 1: Mrecv into a buffer outside memory: MPI_ERR_BUFFER: invalid buffer pointer
// RETURN-DAG: rank 1: handle kept after the failed receives 1, value -1
// RETURN-DAG: rank 1: Mrecv of the matched message: no error
// RETURN-DAG: rank 1: received 7, handle now MPI_MESSAGE_NULL 1
// RETURN-DAG: rank 1: Mrecv of a handle already received: MPI_ERR_REQUEST: invalid request
// RETURN-DAG: rank 0: Grequest_complete of an ordinary request: MPI_ERR_REQUEST: invalid request
// RETURN-DAG: rank 0: Grequest_complete of a forged handle: MPI_ERR_REQUEST: invalid request
// RETURN-DAG: rank 0: Grequest_complete: no error
// RETURN-DAG: rank 0: Grequest_complete again: MPI_ERR_REQUEST: invalid request
// RETURN-DAG: rank 0: Test_cancelled of a status outside memory: MPI_ERR_ARG: invalid argument of some other kind
// RETURN-DAG: rank 0: Get_count of a status outside memory: MPI_ERR_ARG: invalid argument of some other kind
// RETURN-DAG: rank 0: Status_set_elements of an invalid datatype: MPI_ERR_TYPE: invalid datatype

// FATAL: synergy-run: rank 1: MPI_Mrecv: invalid message handle 12345 (MPI_ERR_REQUEST)
// FATAL-NOT: went on

// DEADLOCK: synergy-run: deadlock: every running rank is blocked and no message can arrive
// DEADLOCK-DAG: rank 0: blocked in MPI_Mprobe (source 1, tag 9) on MPI_COMM_WORLD
// DEADLOCK-DAG: rank 1: blocked in MPI_Mprobe (source 0, tag 9) on MPI_COMM_WORLD
// DEADLOCK-NOT: probed a message

// CALLBACK: trap: indirect call type mismatch or null entry
// NOTHING-NOT: started

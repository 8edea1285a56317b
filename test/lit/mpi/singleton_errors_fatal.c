// A singleton job (no -np) ends on an MPI error under the default
// MPI_ERRORS_ARE_FATAL exactly as a job of -np 1 does: the same one-line
// message on stderr and the error class as exit status (6, MPI_ERR_RANK).
// It used to exit silently. MPI_Abort's message and code, too.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm send; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SEND
// RUN: sh -c '%synergy-run -np 1 %t.wasm send; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SEND
// RUN: sh -c '%synergy-run %t.wasm abort; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ABORT
// RUN: sh -c '%synergy-run -np 1 %t.wasm abort; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ABORT
// SEND: before
// SEND-NEXT: synergy-run: rank 0: MPI_Send: invalid destination rank 5 (communicator size 1) (MPI_ERR_RANK)
// SEND-NOT: after
// SEND: exit=6
// ABORT: before
// ABORT-NEXT: synergy-run: rank 0 called MPI_Abort with error code 3
// ABORT-NOT: after
// ABORT: exit=3
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int x = 1;
  printf("before\n");
  fflush(stdout);
  if (argc > 1 && !strcmp(argv[1], "abort"))
    MPI_Abort(MPI_COMM_WORLD, 3);
  else
    MPI_Send(&x, 1, MPI_INT, 5, 0, MPI_COMM_WORLD);
  printf("after\n");
  MPI_Finalize();
  return 0;
}

// Under MPI_ERRORS_ARE_FATAL, an invalid destination rank in a pthread of
// rank 1 ends the whole job as it does in a main thread: the message names
// rank 1 (not the rank 0 of a world of one that a thread used to see), the
// exit status is the error class (6, MPI_ERR_RANK), and neither the thread
// nor rank 1's main thread, which waits in MPI_Recv meanwhile, goes on.
// RUN: %mpi-diff --cflag=-pthread %s %t 2 3
// RUN: sh -c '%synergy-run -np 2 %t/granule.wasm; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK-NOT: not reached
// CHECK: synergy-run: rank 1: MPI_Send: invalid destination rank 7 (communicator size 2) (MPI_ERR_RANK)
// CHECK-NOT: not reached
// CHECK: exit=6
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static void* send_badly(void* arg) {
  (void)arg;
  int x = 0;
  MPI_Send(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
  printf("not reached in the thread\n");
  return NULL;
}

int main(int argc, char** argv) {
  int rank, provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    pthread_t thread;
    pthread_create(&thread, NULL, send_badly, NULL);
    int y;
    MPI_Recv(&y, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("not reached in the main thread\n");
    pthread_join(thread, NULL);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}

// A pthread of each rank sends 1 MiB (a rendezvous) to the other rank and
// then sets a volatile flag, which the main thread, after its receive,
// spins on with no call in the loop: MPICH's threads/pt2pt/threaded_sr
// does this (`static volatile int sendok`). Wasm has no volatile loads, so
// the granule's AOT compiler used to hoist the load out of the loop and the
// main thread spun forever after the data had arrived; the
// atomic-spin-wait-loads pass now makes the load of such a loop atomic
// (passes/atomic-spin-wait-loads.wat). A second flag goes the other way (the
// thread waits for the main thread's store), and the bytes received are
// checked.
// RUN: %mpi-diff --cflag=-pthread %s %t 2
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBytes = 1 << 20 };

static volatile int sendok = -1;
static volatile int received = 0;
static int rank;

static void* send_thread(void* unused) {
  (void)unused;
  char* buffer = malloc(kBytes);
  for (int i = 0; i < kBytes; ++i) buffer[i] = (char)(i * 7 + rank);
  int err = MPI_Send(buffer, kBytes, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD);
  sendok = err == MPI_SUCCESS;
  while (!received) {
  }
  free(buffer);
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t thread;
  pthread_create(&thread, NULL, send_thread, NULL);
  unsigned char* buffer = malloc(kBytes);
  MPI_Recv(buffer, kBytes, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  received = 1;
  while (sendok == -1) {
  }
  pthread_join(thread, NULL);
  int wrong = 0;
  for (int i = 0; i < kBytes; ++i) wrong += buffer[i] != (unsigned char)(i * 7 + 1 - rank);
  printf("rank %d: provided %d, sendok %d, %d wrong bytes\n", rank,
         provided == MPI_THREAD_MULTIPLE, sendok, wrong);
  free(buffer);
  MPI_Finalize();
  return 0;
}

// fork() fails with ENOSYS, and says why on stderr, where the caller cannot
// be copied into a child granule: in an MPI rank, which would need a rank of
// its own, on a thread, and on the main thread while another runs, since
// their memory is shared. The job goes on and ends normally.
// RUN: %synergy-cc -O2 -pthread %s -o %t.wasm
// RUN: %synergy-run -np 2 %t.wasm mpi > %t.mpi.out 2> %t.mpi.err
// RUN: FileCheck %s --check-prefix=MPI < %t.mpi.out
// RUN: FileCheck %s --check-prefix=MPI-ERR < %t.mpi.err
// RUN: %synergy-run %t.wasm thread > %t.thread.out 2> %t.thread.err
// RUN: FileCheck %s --check-prefix=THREAD < %t.thread.out
// RUN: FileCheck %s --check-prefix=THREAD-ERR < %t.thread.err
// MPI-DAG: rank 0: fork -1, ENOSYS 1
// MPI-DAG: rank 1: fork -1, ENOSYS 1
// MPI-ERR: synergy-run: fork() failed: fork() is served only in synergy-run's single process granule, not in an MPI rank
// THREAD: thread: fork -1, ENOSYS 1
// THREAD-NEXT: main beside a thread: fork -1, ENOSYS 1
// THREAD-NEXT: main: done
// THREAD-ERR: synergy-run: fork() failed: fork() on a thread is not served: its memory is shared with other threads
// THREAD-ERR-NEXT: synergy-run: fork() failed: a granule that shares its memory with threads cannot be unwound
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int mainForked;

static void* waitForMain(void* unused) {
  (void)unused;
  while (!atomic_load(&mainForked)) {
  }
  return NULL;
}

static void* forkOnThread(void* unused) {
  (void)unused;
  errno = 0;
  pid_t child = fork();
  printf("thread: fork %d, ENOSYS %d\n", (int)child, errno == ENOSYS);
  fflush(stdout);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "mpi") == 0) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    errno = 0;
    pid_t child = fork();
    printf("rank %d: fork %d, ENOSYS %d\n", rank, (int)child, errno == ENOSYS);
    MPI_Finalize();
    return 0;
  }
  pthread_t thread;
  if (pthread_create(&thread, NULL, forkOnThread, NULL) != 0) return 1;
  pthread_join(thread, NULL);
  if (pthread_create(&thread, NULL, waitForMain, NULL) != 0) return 1;
  errno = 0;
  pid_t child = fork();
  printf("main beside a thread: fork %d, ENOSYS %d\n", (int)child, errno == ENOSYS);
  fflush(stdout);
  atomic_store(&mainForked, 1);
  pthread_join(thread, NULL);
  printf("main: done\n");
  return 0;
}

// MPI_Win_fence from several threads of a rank at once, each thread on a
// window of its own (MPI_THREAD_MULTIPLE, as MPICH's threads/rma/multifence
// does): every round a thread puts a block into its right neighbour's
// window, fences, checks what its left neighbour put into its own window,
// then gets back from the right neighbour what it put there and fences
// again. A fence of one window that completes with another window's fence
// lets a rank read before its neighbour wrote: wrong values, or a hang.
// Each window's fences must be the window's own collective, not one of the
// communicator it was made from (which all the windows share).
// RUN: %mpi-diff --cflag=-pthread %s %t 2 3 4
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define ROUNDS 60
#define COUNT 256

static int rank, size;
static MPI_Win windows[THREADS];
static int* window_memory[THREADS];

struct epochs {
  int thread;
  long wrong_puts, wrong_gets, checksum;
};

static int value_of(int from, int thread, int round, int k) {
  return from * 1000000 + thread * 100000 + round * 1000 + k;
}

static void* run_epochs(void* arg) {
  struct epochs* self = arg;
  int t = self->thread;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int* mine = window_memory[t];
  int* local;
  MPI_Alloc_mem(COUNT * sizeof(int), MPI_INFO_NULL, &local);
  MPI_Win_fence(0, windows[t]);
  for (int round = 0; round < ROUNDS; ++round) {
    for (int k = 0; k < COUNT; ++k) local[k] = value_of(rank, t, round, k);
    MPI_Put(local, COUNT, MPI_INT, right, 0, COUNT, MPI_INT, windows[t]);
    MPI_Win_fence(0, windows[t]);
    for (int k = 0; k < COUNT; ++k) {
      if (mine[k] != value_of(left, t, round, k)) ++self->wrong_puts;
      self->checksum += mine[k] % 9973;
    }
    for (int k = 0; k < COUNT; ++k) local[k] = -1;
    MPI_Get(local, COUNT, MPI_INT, right, 0, COUNT, MPI_INT, windows[t]);
    MPI_Win_fence(0, windows[t]);
    for (int k = 0; k < COUNT; ++k)
      if (local[k] != value_of(rank, t, round, k)) ++self->wrong_gets;
  }
  MPI_Free_mem(local);
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) {
    printf("rank %d: MPI_THREAD_MULTIPLE not provided\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int t = 0; t < THREADS; ++t)
    MPI_Win_allocate(COUNT * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &window_memory[t], &windows[t]);
  pthread_t threads[THREADS];
  struct epochs results[THREADS] = {{0}};
  for (int t = 0; t < THREADS; ++t) {
    results[t].thread = t;
    pthread_create(&threads[t], NULL, run_epochs, &results[t]);
  }
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < THREADS; ++t)
    printf("rank %d thread %d: %d rounds, wrong puts %ld, wrong gets %ld, checksum %ld\n", rank, t,
           ROUNDS, results[t].wrong_puts, results[t].wrong_gets, results[t].checksum);
  for (int t = 0; t < THREADS; ++t) MPI_Win_free(&windows[t]);
  MPI_Finalize();
  return 0;
}

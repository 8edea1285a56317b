// MPI_Mprobe from two threads under MPI_THREAD_MULTIPLE: every rank but 0
// sends rank 0 a stream of numbered messages (eager and rendezvous sizes);
// two threads of rank 0 each take messages with MPI_Mprobe(MPI_ANY_SOURCE)
// and MPI_Mrecv until all have come. A matched message belongs to the thread
// that probed it, so every message is received exactly once, whole, and each
// thread sees each sender's messages in send order.
// RUN: %mpi-diff --cflag=-pthread %s %t 2 3 4
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESSAGES 40
#define TAKERS 2
#define LARGE 3000  // ints: past the eager limit

static int size;
static int seen[8][MESSAGES];  // by sender and number: receptions
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

struct taker {
  int count;
  int in_order;
  int intact;
};

static int length_of(int number) { return number % 5 == 4 ? LARGE : 1 + number; }

static void* take(void* argument) {
  struct taker* self = argument;
  int last[8];
  for (int i = 0; i < 8; ++i) last[i] = -1;
  int* data = malloc(LARGE * sizeof(int));
  for (;;) {
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &status);
    int n;
    MPI_Get_count(&status, MPI_INT, &n);
    MPI_Mrecv(data, n, MPI_INT, &message, MPI_STATUS_IGNORE);
    if (status.MPI_TAG == 2) break;  // the end of this taker's share
    int from = status.MPI_SOURCE, number = data[0];
    if (number <= last[from]) self->in_order = 0;
    last[from] = number;
    if (n != length_of(number)) self->intact = 0;
    for (int k = 1; k < n; ++k)
      if (data[k] != from * 100000 + number * 100 + k % 100) self->intact = 0;
    pthread_mutex_lock(&seen_lock);
    ++seen[from][number];
    pthread_mutex_unlock(&seen_lock);
    ++self->count;
  }
  free(data);
  return NULL;
}

int main(int argc, char** argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) {
    printf("no MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank != 0) {
    int* data = malloc(LARGE * sizeof(int));
    for (int number = 0; number < MESSAGES; ++number) {
      data[0] = number;
      for (int k = 1; k < LARGE; ++k) data[k] = rank * 100000 + number * 100 + k % 100;
      MPI_Send(data, length_of(number), MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    free(data);
  } else {
    pthread_t threads[TAKERS];
    struct taker takers[TAKERS];
    for (int t = 0; t < TAKERS; ++t) {
      takers[t] = (struct taker){0, 1, 1};
      pthread_create(&threads[t], NULL, take, &takers[t]);
    }
    // Each taker stops at one end message, sent once every stream is in.
    int all = 0;
    while (all == 0) {
      all = 1;
      pthread_mutex_lock(&seen_lock);
      for (int from = 1; from < size; ++from)
        for (int number = 0; number < MESSAGES; ++number) all &= seen[from][number] > 0;
      pthread_mutex_unlock(&seen_lock);
      if (!all) sched_yield();
    }
    int end = 0;
    for (int t = 0; t < TAKERS; ++t) MPI_Send(&end, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    int total = 0, in_order = 1, intact = 1, once = 1;
    for (int t = 0; t < TAKERS; ++t) {
      pthread_join(threads[t], NULL);
      total += takers[t].count;
      in_order &= takers[t].in_order;
      intact &= takers[t].intact;
    }
    for (int from = 1; from < size; ++from)
      for (int number = 0; number < MESSAGES; ++number) once &= seen[from][number] == 1;
    printf("%d messages taken by %d threads: each exactly once %d, in send order per thread %d, "
           "intact %d\n",
           total, TAKERS, once, in_order, intact);
  }
  MPI_Finalize();
  return 0;
}

// MPI_THREAD_MULTIPLE: the pthreads of a rank call MPI at the same time and
// act as that rank. Thread t of every rank exchanges messages tagged t with
// thread t of every other rank (eager and rendezvous sizes), checks that
// each sender's messages arrive in order, and ends with one message to each
// peer, tagged 50 + t, received from MPI_ANY_SOURCE; meanwhile another thread runs collectives on a duplicate of
// MPI_COMM_WORLD and then sends its result to the next rank, which the main
// thread waits for in MPI_Recv. provided, MPI_Query_thread and
// MPI_Is_thread_main are printed as OpenMPI reports them.
// RUN: %mpi-diff --cflag=-pthread %s %t 2 3 4
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define EXCHANGERS 3
#define ROUNDS 12
#define LARGE 4096  // ints: past any eager limit
#define RESULT_TAG 999
#define LAST_TAG 50

static int rank, size;
static MPI_Comm dup;

struct exchanger {
  int id;
  int in_order;
  long sum;
};

static int value_of(int from, int thread, int round) { return from * 10000 + thread * 100 + round; }

static void* exchange(void* arg) {
  struct exchanger* self = arg;
  int tag = self->id;
  int is_main = -1;
  MPI_Is_thread_main(&is_main);
  if (is_main != 0) self->in_order = 0;
  int* large_out = malloc(sizeof(int) * LARGE);
  int* large_in = malloc(sizeof(int) * LARGE);
  int* next_round = calloc(size, sizeof(int));
  MPI_Request* sends = malloc(sizeof(MPI_Request) * size);
  for (int round = 0; round < ROUNDS; ++round) {
    int large = round % 4 == 3;
    int value = value_of(rank, self->id, round);
    for (int i = 0; i < LARGE; ++i) large_out[i] = value + i;
    int pending = 0;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      if (large)
        MPI_Isend(large_out, LARGE, MPI_INT, peer, tag, MPI_COMM_WORLD, &sends[pending++]);
      else
        MPI_Isend(&value, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &sends[pending++]);
    }
    for (int k = 0; k < size - 1; ++k) {
      MPI_Status status;
      MPI_Recv(large_in, LARGE, MPI_INT, (rank + 1 + k) % size, tag, MPI_COMM_WORLD, &status);
      int source = status.MPI_SOURCE;
      int count;
      MPI_Get_count(&status, MPI_INT, &count);
      int expected = value_of(source, self->id, next_round[source]++);
      if (status.MPI_TAG != tag || large_in[0] != expected || count != (large ? LARGE : 1))
        self->in_order = 0;
      if (large && large_in[LARGE - 1] != expected + LARGE - 1) self->in_order = 0;
      self->sum += large_in[0];
    }
    MPI_Waitall(pending, sends, MPI_STATUSES_IGNORE);
  }
  int last = value_of(rank, self->id, ROUNDS), pending = 0;
  for (int peer = 0; peer < size; ++peer)
    if (peer != rank)
      MPI_Isend(&last, 1, MPI_INT, peer, LAST_TAG + tag, MPI_COMM_WORLD, &sends[pending++]);
  for (int k = 0; k < size - 1; ++k) {
    MPI_Status status;
    int got = -1;
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, LAST_TAG + tag, MPI_COMM_WORLD, &status);
    int source = status.MPI_SOURCE;
    if (source == rank || next_round[source] != ROUNDS ||
        got != value_of(source, self->id, next_round[source]++))
      self->in_order = 0;
  }
  MPI_Waitall(pending, sends, MPI_STATUSES_IGNORE);
  free(sends);
  free(next_round);
  free(large_in);
  free(large_out);
  return NULL;
}

static long collective_result;

static void* collectives(void* arg) {
  (void)arg;
  int mine = rank + 1, total = 0, root_value = rank == 0 ? 77 : -1;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, dup);
  MPI_Bcast(&root_value, 1, MPI_INT, 0, dup);
  int* all = malloc(sizeof(int) * size);
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, dup);
  long gathered = 0;
  for (int i = 0; i < size; ++i) gathered = gathered * 10 + all[i];
  free(all);
  MPI_Barrier(dup);
  collective_result = total * 1000000L + root_value * 10000L + gathered;
  MPI_Send(&collective_result, 1, MPI_LONG, (rank + 1) % size, RESULT_TAG, MPI_COMM_WORLD);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1, queried = -1, is_main = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Query_thread(&queried);
  MPI_Is_thread_main(&is_main);
  printf("rank %d: provided %d, query %d, main %d\n", rank, provided, queried, is_main);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);

  pthread_t exchangers[EXCHANGERS], collector;
  struct exchanger state[EXCHANGERS];
  for (int t = 0; t < EXCHANGERS; ++t) {
    state[t].id = t;
    state[t].in_order = 1;
    state[t].sum = 0;
    pthread_create(&exchangers[t], NULL, exchange, &state[t]);
  }
  pthread_create(&collector, NULL, collectives, NULL);

  long from_previous = 0;
  MPI_Recv(&from_previous, 1, MPI_LONG, (rank + size - 1) % size, RESULT_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  pthread_join(collector, NULL);
  for (int t = 0; t < EXCHANGERS; ++t) {
    pthread_join(exchangers[t], NULL);
    printf("rank %d thread %d: in order %d, sum %ld\n", rank, t, state[t].in_order, state[t].sum);
  }
  printf("rank %d: collectives %ld, from previous rank %ld\n", rank, collective_result,
         from_previous);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}

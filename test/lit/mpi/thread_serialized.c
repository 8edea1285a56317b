// MPI_THREAD_SERIALIZED: a pthread of a rank calls MPI while its main thread
// only joins it, and acts as that rank (it used to get rank 0, or end the
// job with status 6 and no message): it reads its rank, the thread level and
// whether it is the main thread, and passes a token round the ring of ranks
// and a reduction on MPI_COMM_WORLD; the main thread then checks both.
// RUN: %mpi-diff --cflag=-pthread %s %t 2 3 4
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

struct seen {
  int rank, level, is_main, token, total;
};

static void* talk(void* arg) {
  struct seen* seen = arg;
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &seen->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Query_thread(&seen->level);
  MPI_Is_thread_main(&seen->is_main);
  int next = (seen->rank + 1) % size, previous = (seen->rank + size - 1) % size;
  int out = seen->rank * 10 + 1;
  MPI_Sendrecv(&out, 1, MPI_INT, next, 7, &seen->token, 1, MPI_INT, previous, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Allreduce(&out, &seen->total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1, rank, is_main = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Is_thread_main(&is_main);
  struct seen seen = {-1, -1, -1, -1, -1};
  pthread_t thread;
  pthread_create(&thread, NULL, talk, &seen);
  pthread_join(thread, NULL);
  printf("rank %d: provided %d, main %d; its thread: rank %d, level %d, main %d, token %d, "
         "total %d\n",
         rank, provided, is_main, seen.rank, seen.level, seen.is_main, seen.token, seen.total);
  MPI_Finalize();
  return 0;
}

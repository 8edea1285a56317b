// Generalized requests (MPI_Grequest_start, MPI_Grequest_complete): the
// completion calls wait on them like on any request, and the three callbacks
// run where MPI-3.1 section 12.2 says. Each phase prints the callbacks that
// ran, in order:
//  - a Test before MPI_Grequest_complete says not done and runs none;
//    MPI_Request_get_status after it runs the query function; MPI_Wait runs
//    the query, then the free function, and returns the status the query
//    filled (source, tag, MPI_Status_set_elements' count);
//  - MPI_Cancel runs the cancel function with complete=0, and a query that
//    calls MPI_Status_set_cancelled makes MPI_Test_cancelled say so;
//  - MPI_Request_free before completion defers the free function to
//    MPI_Grequest_complete;
//  - a pthread completes the request while the main thread waits in
//    MPI_Waitall beside an ordinary receive.
// RUN: %mpi-diff --cflag=-pthread %s %t 2
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct operation {
  char log[128];
  int cancelled;
  MPI_Request request;
  long result;
};

static void note(struct operation* op, const char* what) {
  strcat(op->log, what);
  strcat(op->log, " ");
}

static int query(void* state, MPI_Status* status) {
  struct operation* op = state;
  note(op, "query");
  status->MPI_SOURCE = 5;
  status->MPI_TAG = 6;
  status->MPI_ERROR = MPI_SUCCESS;
  MPI_Status_set_elements(status, MPI_INT, 7);
  MPI_Status_set_cancelled(status, op->cancelled);
  return MPI_SUCCESS;
}

static int release(void* state) {
  note(state, "free");
  return MPI_SUCCESS;
}

static int cancel(void* state, int complete) {
  struct operation* op = state;
  note(op, complete ? "cancel(complete=1)" : "cancel(complete=0)");
  if (!complete) op->cancelled = 1;
  return MPI_SUCCESS;
}

static void show(int rank, const char* phase, struct operation* op) {
  printf("rank %d %s: %s\n", rank, phase, op->log[0] ? op->log : "(none)");
  op->log[0] = 0;
}

static void* worker(void* state) {
  struct operation* op = state;
  long sum = 0;
  for (long i = 1; i <= 100000; ++i) sum += i % 7;
  op->result = sum;
  MPI_Grequest_complete(op->request);
  return NULL;
}

int main(int argc, char** argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct operation op = {{0}, 0, MPI_REQUEST_NULL, 0};
  MPI_Request request;
  MPI_Status status;
  int flag;
  MPI_Grequest_start(query, release, cancel, &op, &request);
  MPI_Test(&request, &flag, &status);
  printf("rank %d test before completion: flag %d\n", rank, flag);
  show(rank, "test before completion", &op);
  MPI_Grequest_complete(request);
  MPI_Request_get_status(request, &flag, &status);
  show(rank, "get_status after completion", &op);
  MPI_Wait(&request, &status);
  int count;
  MPI_Get_count(&status, MPI_INT, &count);
  printf("rank %d wait: source %d tag %d count %d request null %d\n", rank, status.MPI_SOURCE,
         status.MPI_TAG, count, request == MPI_REQUEST_NULL);
  show(rank, "wait", &op);

  MPI_Grequest_start(query, release, cancel, &op, &request);
  MPI_Cancel(&request);
  show(rank, "cancel", &op);
  MPI_Grequest_complete(request);
  MPI_Wait(&request, &status);
  MPI_Test_cancelled(&status, &flag);
  printf("rank %d cancelled request: test_cancelled %d\n", rank, flag);
  show(rank, "wait after cancel", &op);
  op.cancelled = 0;

  MPI_Grequest_start(query, release, cancel, &op, &request);
  MPI_Request kept = request;
  MPI_Request_free(&request);
  show(rank, "request_free before completion", &op);
  MPI_Grequest_complete(kept);
  show(rank, "complete after request_free", &op);

  MPI_Request both[2];
  int got = -1, sent = 70 + rank;
  MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &both[0]);
  MPI_Grequest_start(query, release, cancel, &op, &both[1]);
  op.request = both[1];
  pthread_t thread;
  pthread_create(&thread, NULL, worker, &op);
  MPI_Send(&sent, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD);
  MPI_Status statuses[2];
  MPI_Waitall(2, both, statuses);
  pthread_join(thread, NULL);
  printf("rank %d waitall: received %d, thread's result %ld, generalized source %d\n", rank, got,
         op.result, statuses[1].MPI_SOURCE);
  show(rank, "waitall with a thread completing", &op);
  MPI_Finalize();
  return 0;
}

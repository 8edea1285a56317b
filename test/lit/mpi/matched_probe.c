// Matched probe (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv). Every
// rank but 0 sends rank 0 a stream of messages of growing size, eager and
// rendezvous alike, each carrying its sequence number; rank 0 takes them with
// MPI_Mprobe or MPI_Improbe from MPI_ANY_SOURCE, sizes its buffer from the
// status and receives them with MPI_Mrecv or MPI_Imrecv, and checks each
// sender's messages come in send order. A probed message is out of matching:
// a receive posted after the probe takes the next message, not it. A probe of
// MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC, whose receive is empty; a receive
// sets the handle to MPI_MESSAGE_NULL.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MESSAGES 12

static int length_of(int from, int i) { return 1 + (i % 4 == 3 ? 5000 : from * 7 + i); }

static void send_stream(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < MESSAGES; ++i) {
    int n = length_of(rank, i);
    int* data = malloc(n * sizeof(int));
    for (int k = 0; k < n; ++k) data[k] = rank * 1000000 + i * 1000 + k % 1000;
    MPI_Send(data, n, MPI_INT, 0, 10 + i % 3, MPI_COMM_WORLD);
    free(data);
  }
}

static void take_streams(int senders) {
  int next[8] = {0};
  int in_order = 1, intact = 1, sizes_right = 1;
  for (int taken = 0; taken < senders * MESSAGES; ++taken) {
    MPI_Message message;
    MPI_Status status;
    if (taken % 2) {
      int flag = 0;
      while (!flag) MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &message,
                                &status);
    } else {
      MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &status);
    }
    int n, from = status.MPI_SOURCE;
    MPI_Get_count(&status, MPI_INT, &n);
    int i = next[from]++;
    if (n != length_of(from, i) || status.MPI_TAG != 10 + i % 3) sizes_right = 0;
    int* data = malloc(n * sizeof(int));
    MPI_Status received;
    if (taken % 3) {
      MPI_Mrecv(data, n, MPI_INT, &message, &received);
    } else {
      MPI_Request request;
      MPI_Imrecv(data, n, MPI_INT, &message, &request);
      MPI_Wait(&request, &received);
    }
    if (message != MPI_MESSAGE_NULL) printf("message handle not reset\n");
    if (received.MPI_SOURCE != from || received.MPI_TAG != status.MPI_TAG) sizes_right = 0;
    if (data[0] != from * 1000000 + i * 1000) in_order = 0;
    for (int k = 0; k < n; ++k)
      if (data[k] != from * 1000000 + i * 1000 + k % 1000) intact = 0;
    free(data);
  }
  printf("rank 0 took %d messages: in send order %d, intact %d, sizes and tags %d\n",
         senders * MESSAGES, in_order, intact, sizes_right);
}

// Rank 1 sends 3 messages tagged 20; rank 0 probes the first, then a receive
// with MPI_ANY_TAG must take the second, and the matched one the first.
static void probed_message_leaves_matching(int rank) {
  if (rank == 1)
    for (int v = 1; v <= 3; ++v) MPI_Send(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD);
  if (rank != 0) return;
  MPI_Message message;
  MPI_Status status;
  MPI_Mprobe(1, 20, MPI_COMM_WORLD, &message, &status);
  int second = 0, first = 0, third = 0;
  MPI_Recv(&second, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Mrecv(&first, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
  MPI_Recv(&third, 1, MPI_INT, 1, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("probed first %d, receive after the probe got %d, then %d\n", first, second, third);
}

static void no_proc(void) {
  MPI_Message message;
  MPI_Status status;
  MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &message, &status);
  int no_proc = message == MPI_MESSAGE_NO_PROC;
  int value = 42;
  MPI_Mrecv(&value, 1, MPI_INT, &message, &status);
  int count;
  MPI_Get_count(&status, MPI_INT, &count);
  int flag = 0;
  MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &message, &status);
  printf("PROC_NULL: no-proc handle %d, source is PROC_NULL %d, tag is ANY_TAG %d, count %d, "
         "value %d, handle after %d, improbe flag %d\n",
         no_proc, status.MPI_SOURCE == MPI_PROC_NULL, status.MPI_TAG == MPI_ANY_TAG, count, value,
         message == MPI_MESSAGE_NO_PROC, flag);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    take_streams(size - 1);
  else
    send_stream();
  MPI_Barrier(MPI_COMM_WORLD);
  probed_message_leaves_matching(rank);
  if (rank == 0) no_proc();
  MPI_Finalize();
  return 0;
}

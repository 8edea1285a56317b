// A live move of a rank that holds requests (issue 22): at every barrier
// control point from the second on, each rank has a receive posted and not
// yet matched (MPI_Irecv before the barrier, its message sent after it),
// so a move that waited for a control point without pending requests would
// never be taken. The moving rank carries them (checkpoint/RankMove.h): its
// posted receives leave its source's mailbox and are posted again where it
// arrives, into the same guest buffers (contiguous, and a strided vector
// type; from a fixed source, and MPI_ANY_SOURCE with MPI_ANY_TAG on a
// duplicate communicator), and a receive that completed before the move
// and is waited for only after it keeps its status. Two of the receives
// match the same source and tag, and hold handles in the reverse of their
// posting order (a freed handle is taken again last first): they must
// match in posting order after the move too. A persistent receive is
// started before each control point, a persistent buffered send waits
// unstarted across it, and the buffer MPI_Buffer_attach gave is detached
// after the move. OpenMPI's output is the same with no move.
// RUN: %mpi-diff --live-move 2 %s %t/moved 2 3 4
// RUN: %mpi-diff --live-move 3 %s %t/moved3 3
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kCount = 1000, kPhases = 3 };

static long long checksum(const int* values, int count, int stride) {
  long long sum = 0;
  for (int i = 0; i < count; ++i) sum = sum * 31 % 1000000007 + values[i * stride];
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int from = (rank + size - 1) % size, to = (rank + 1) % size;
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Datatype every_other;
  MPI_Type_vector(kCount, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);

  // Completed before the move, waited for after it.
  int early = -1;
  MPI_Request early_request;
  MPI_Irecv(&early, 1, MPI_INT, from, 1, MPI_COMM_WORLD, &early_request);
  int early_sent = 100 + rank;
  MPI_Send(&early_sent, 1, MPI_INT, to, 1, MPI_COMM_WORLD);
  int flag = 0;
  MPI_Status status;
  while (!flag) MPI_Request_get_status(early_request, &flag, &status);
  // Five handles taken and freed in order, so that the next five come
  // last first.
  MPI_Request warm[5];
  int sink[5];
  for (int i = 0; i < 5; ++i) MPI_Irecv(&sink[i], 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &warm[i]);
  for (int i = 0; i < 5; ++i) MPI_Send(&i, 1, MPI_INT, rank, 2, MPI_COMM_WORLD);
  MPI_Waitall(5, warm, MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);  // control point 1

  int* plain = malloc(sizeof(int) * kCount);
  int* strided = malloc(sizeof(int) * 2 * kCount);
  int* any = malloc(sizeof(int) * kCount);
  int* out = malloc(sizeof(int) * kCount);
  int attached_size = 4 * (sizeof(int) + MPI_BSEND_OVERHEAD);
  void* attached = malloc(attached_size);
  MPI_Buffer_attach(attached, attached_size);
  int persistent_got = -1, persistent_sent = -1;
  MPI_Request persistent[2];
  MPI_Recv_init(&persistent_got, 1, MPI_INT, from, 50, MPI_COMM_WORLD, &persistent[0]);
  MPI_Bsend_init(&persistent_sent, 1, MPI_INT, to, 50, MPI_COMM_WORLD, &persistent[1]);
  for (int phase = 0; phase < kPhases; ++phase) {
    MPI_Request requests[5];
    MPI_Start(&persistent[0]);
    int first = -1, second = -1;
    MPI_Irecv(plain, kCount, MPI_INT, from, 10 + phase, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(strided, 1, every_other, from, 20 + phase, MPI_COMM_WORLD, &requests[1]);
    MPI_Irecv(any, kCount, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &requests[2]);
    MPI_Irecv(&first, 1, MPI_INT, from, 40, MPI_COMM_WORLD, &requests[3]);
    MPI_Irecv(&second, 1, MPI_INT, from, 40, MPI_COMM_WORLD, &requests[4]);
    MPI_Barrier(MPI_COMM_WORLD);  // control point 2 + phase: five receives pending
    for (int i = 0; i < kCount; ++i) out[i] = rank * 100000 + phase * 1000 + i;
    MPI_Send(out, kCount, MPI_INT, to, 10 + phase, MPI_COMM_WORLD);
    MPI_Send(out, kCount, MPI_INT, to, 20 + phase, MPI_COMM_WORLD);
    MPI_Send(out, kCount, MPI_INT, to, 30 + phase, dup);
    int ordered[2] = {phase * 10 + 1, phase * 10 + 2};
    MPI_Send(&ordered[0], 1, MPI_INT, to, 40, MPI_COMM_WORLD);
    MPI_Send(&ordered[1], 1, MPI_INT, to, 40, MPI_COMM_WORLD);
    persistent_sent = rank * 1000 + phase;
    MPI_Start(&persistent[1]);
    MPI_Status statuses[5];
    MPI_Waitall(5, requests, statuses);
    MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
    int count;
    MPI_Get_count(&statuses[2], MPI_INT, &count);
    printf("rank %d phase %d: plain %lld, strided %lld, any %lld from %d tag %d count %d, "
           "in order %d %d, persistent %d\n",
           rank, phase, checksum(plain, kCount, 1), checksum(strided, kCount, 2),
           checksum(any, kCount, 1), statuses[2].MPI_SOURCE, statuses[2].MPI_TAG, count, first,
           second, persistent_got);
  }
  MPI_Request_free(&persistent[0]);
  MPI_Request_free(&persistent[1]);
  void* detached;
  int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);
  printf("rank %d: detached the attached buffer %d, size %d\n", rank, detached == attached,
         detached_size == attached_size);
  free(attached);
  MPI_Wait(&early_request, &status);
  printf("rank %d: early receive %d from %d tag %d, request null %d\n", rank, early,
         status.MPI_SOURCE, status.MPI_TAG, early_request == MPI_REQUEST_NULL);
  MPI_Type_free(&every_other);
  MPI_Comm_free(&dup);
  free(plain);
  free(strided);
  free(any);
  free(out);
  MPI_Finalize();
  return 0;
}

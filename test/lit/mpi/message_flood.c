// Many messages in flight between each pair of ranks, more than a
// sender's channel to a receiver holds at once, before any is received:
// short, medium and eager-sized payloads mixed with rendezvous-sized and
// synchronous ones, under three tags. Receives by tag, by source and with
// MPI_ANY_SOURCE/MPI_ANY_TAG, probes first, must still see each (source,
// tag) stream in send order. Then a synchronous send must stay incomplete
// until its receive is posted, and a large send must complete while its
// receiver, whose receive was posted first, waits in a barrier.
// RUN: %mpi-diff %s %t 2 3 5
// With a checkpoint at every barrier where no message is in flight (others are skipped):
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t.checkpoints 2 3
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMessages = 300, kLargeInts = 20000, kMaxInts = kLargeInts };

static int intsOf(int index) {
  if (index % 37 == 5) return kLargeInts;  // rendezvous-sized
  switch (index % 4) {
    case 0: return 1;
    case 1: return 25;    // longer than a slot's inline data
    case 2: return 1500;  // still eager
    default: return 0;
  }
}

static int tagOf(int index) { return 1 + index % 3; }

static void fill(int* data, int count, int rank, int index) {
  for (int i = 0; i < count; ++i) data[i] = rank * 100000 + index * 10 + i % 10;
}

// Checks a received message against what its sender must have sent; the
// index travels in the data (or, for empty messages, is counted).
static int check(const int* data, int count, int source, int* expectedIndex, int tag) {
  int index = *expectedIndex;
  while (tagOf(index) != tag) ++index;
  *expectedIndex = index + 1;
  if (count != intsOf(index)) return 0;
  for (int i = 0; i < count; ++i)
    if (data[i] != source * 100000 + index * 10 + i % 10) return 0;
  return 1;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peers = size - 1;

  if (rank > 0) {
    MPI_Request* requests = malloc(sizeof(MPI_Request) * kMessages);
    int** data = malloc(sizeof(int*) * kMessages);
    for (int m = 0; m < kMessages; ++m) {
      int count = intsOf(m);
      data[m] = malloc(sizeof(int) * (count + 1));
      fill(data[m], count, rank, m);
      if (m % 50 == 7)
        MPI_Issend(data[m], count, MPI_INT, 0, tagOf(m), MPI_COMM_WORLD, &requests[m]);
      else
        MPI_Isend(data[m], count, MPI_INT, 0, tagOf(m), MPI_COMM_WORLD, &requests[m]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(kMessages, requests, MPI_STATUSES_IGNORE);
    for (int m = 0; m < kMessages; ++m) free(data[m]);
    free(data);
    free(requests);
  } else {
    // Busy outside MPI for a while, so that the messages pile up unread.
    volatile long spin = 0;
    for (long i = 0; i < 20000000; ++i) spin += i;
    MPI_Barrier(MPI_COMM_WORLD);
    int* buffer = malloc(sizeof(int) * kMaxInts);
    // Next expected index per source and tag.
    int(*next)[4] = calloc(size, sizeof(*next));
    int ok = 1, received = 0;
    // Tag 2 from each source in turn, by source and tag.
    for (int source = 1; source < size; ++source) {
      for (int m = 0; m < kMessages; ++m) {
        if (tagOf(m) != 2) continue;
        MPI_Status status;
        MPI_Recv(buffer, kMaxInts, MPI_INT, source, 2, MPI_COMM_WORLD, &status);
        int count;
        MPI_Get_count(&status, MPI_INT, &count);
        ok &= status.MPI_SOURCE == source && status.MPI_TAG == 2;
        ok &= check(buffer, count, source, &next[source][2], 2);
        ++received;
      }
    }
    printf("tag 2 by source: %d messages, in order: %d\n", received, ok);
    // Tag 3 from anyone, probed first.
    int probedOk = 1;
    for (int n = 0; n < peers * (kMessages / 3); ++n) {
      MPI_Status probed, status;
      MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &probed);
      int probedCount, count;
      MPI_Get_count(&probed, MPI_INT, &probedCount);
      MPI_Recv(buffer, kMaxInts, MPI_INT, probed.MPI_SOURCE, 3, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_INT, &count);
      probedOk &= count == probedCount && status.MPI_SOURCE == probed.MPI_SOURCE;
      ok &= check(buffer, count, status.MPI_SOURCE, &next[status.MPI_SOURCE][3], 3);
      ++received;
    }
    printf("tag 3 probed from any source: probes agree: %d, in order: %d\n", probedOk, ok);
    // What is left (tag 1) with both wildcards, polled with MPI_Iprobe.
    int left = 0;
    for (;;) {
      int flag;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
      if (!flag) {
        if (left == peers * (kMessages / 3)) break;
        continue;
      }
      MPI_Recv(buffer, kMaxInts, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int count;
      MPI_Get_count(&status, MPI_INT, &count);
      ok &= status.MPI_TAG == 1;
      ok &= check(buffer, count, status.MPI_SOURCE, &next[status.MPI_SOURCE][1], 1);
      ++left;
    }
    printf("tag 1 with wildcards: %d messages, in order: %d\n", left, ok);
    free(next);
    free(buffer);
  }

  // Nothing of the next part may meet rank 0's wildcard receives above.
  MPI_Barrier(MPI_COMM_WORLD);

  // A synchronous send is not complete before its receive is posted.
  if (size >= 2 && rank < 2) {
    int value = 42, got = 0, flag = -1;
    MPI_Request request;
    if (rank == 1) {
      MPI_Issend(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &request);
      for (int i = 0; i < 1000; ++i) MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
      printf("synchronous send complete before its receive: %d\n", flag);
      MPI_Send(&value, 0, MPI_INT, 0, 8, MPI_COMM_WORLD);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      printf("synchronous send complete after its receive\n");
    } else {
      MPI_Recv(&got, 0, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(&got, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("synchronous message: %d\n", got);
    }
  }

  // A blocking large send to a rank that posted its receive and then waits
  // in a barrier: the barrier must let the message through.
  int* large = calloc(kLargeInts, sizeof(int));
  if (rank == 0) {
    MPI_Request request;
    MPI_Irecv(large, kLargeInts, MPI_INT, size - 1, 11, MPI_COMM_WORLD, &request);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    printf("large message during a barrier: last %d\n", large[kLargeInts - 1]);
  } else {
    if (rank == size - 1) {
      for (int i = 0; i < kLargeInts; ++i) large[i] = i;
      MPI_Send(large, kLargeInts, MPI_INT, 0, 11, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(large);
  MPI_Finalize();
  return 0;
}

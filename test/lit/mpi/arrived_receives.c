// Nonblocking receives whose messages have arrived before they are posted
// complete as they are posted, in the rank's own request records, which
// it reuses; sends copied at once all share one completed-send handle.
// Each round rank 0 sends messages of varying tag and length, then rank 1
// posts receives for them in a different order than they came (by tag,
// any tag, reversed), mixed with receives posted before their messages
// are sent, and completes them with every completion call. The statuses,
// counts and data must be those of this round's messages, never of an
// earlier use of a record, also after a record's handle was freed with
// MPI_Request_free.
// RUN: %mpi-diff %s %t 2
// With a checkpoint at every barrier where no message is in flight (others are skipped):
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t.checkpoints 2
#include <mpi.h>
#include <stdio.h>

enum { kMessages = 12, kRounds = 6, kLate = 2, kLateTag = 9 };

static int lengthOf(int round, int i) { return 1 + (i * 7 + round * 3) % 5; }
static int tagOf(int i) { return i % 4; }

static void report(int round, const char* how, int index, const int* buffer, MPI_Status* status) {
  int count;
  MPI_Get_count(status, MPI_INT, &count);
  printf("round %d %s %d: source %d tag %d count %d first %d last %d\n", round, how, index,
         status->MPI_SOURCE, status->MPI_TAG, count, buffer[0], buffer[count > 0 ? count - 1 : 0]);
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int round = 0; round < kRounds; ++round) {
    if (rank == 0) {
      int data[kMessages][8], late[kLate][8];
      MPI_Request requests[kMessages];
      int sent = 0;
      for (int i = 0; i < kMessages; ++i) {
        for (int k = 0; k < 8; ++k) data[i][k] = round * 1000 + i * 10 + k;
        if (i % 3 == 2)
          MPI_Send(data[i], lengthOf(round, i), MPI_INT, 1, tagOf(i), MPI_COMM_WORLD);
        else
          MPI_Isend(data[i], lengthOf(round, i), MPI_INT, 1, tagOf(i), MPI_COMM_WORLD,
                    &requests[sent++]);
      }
      // One handle freed, one tested, the rest waited for.
      MPI_Request_free(&requests[0]);
      int done = 0;
      while (!done) MPI_Test(&requests[1], &done, MPI_STATUS_IGNORE);
      MPI_Waitall(sent - 2, requests + 2, MPI_STATUSES_IGNORE);
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = 0; i < kLate; ++i) {
        for (int k = 0; k < 8; ++k) late[i][k] = -(round * 100 + i * 10 + k);
        MPI_Send(late[i], 3 + i, MPI_INT, 1, kLateTag, MPI_COMM_WORLD);
      }
    } else {
      int late[kLate][8], buffers[kMessages][8];
      MPI_Request lateRequests[kLate], requests[kMessages];
      MPI_Status statuses[kMessages];
      for (int i = 0; i < kLate; ++i)
        MPI_Irecv(late[i], 8, MPI_INT, 0, kLateTag, MPI_COMM_WORLD, &lateRequests[i]);
      // Once past the barrier, every message of the round has arrived.
      MPI_Barrier(MPI_COMM_WORLD);
      int posted = 0;
      for (int tag = 3; tag >= 1; --tag)
        for (int n = 0; n < 2; ++n)
          MPI_Irecv(buffers[posted], 8, MPI_INT, 0, tag, MPI_COMM_WORLD, &requests[posted]),
              ++posted;
      for (; posted < kMessages; ++posted)
        MPI_Irecv(buffers[posted], 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &requests[posted]);
      MPI_Wait(&requests[0], &statuses[0]);
      report(round, "wait", 0, buffers[0], &statuses[0]);
      int done = 0;
      while (!done) MPI_Test(&requests[1], &done, &statuses[1]);
      report(round, "test", 1, buffers[1], &statuses[1]);
      MPI_Request_free(&requests[2]);
      int index;
      MPI_Waitany(3, requests + 3, &index, &statuses[3]);
      report(round, "waitany", 3 + index, buffers[3 + index], &statuses[3]);
      // Reported in index order, however many each call finds complete.
      MPI_Status some[kMessages], byIndex[kMessages];
      int found = 0, count, indices[kMessages];
      while (found < kMessages - 6) {
        MPI_Testsome(kMessages - 6, requests + 6, &count, indices, some);
        for (int i = 0; count != MPI_UNDEFINED && i < count; ++i) byIndex[indices[i]] = some[i];
        if (count != MPI_UNDEFINED) found += count;
      }
      for (int i = 0; i < kMessages - 6; ++i)
        report(round, "testsome", 6 + i, buffers[6 + i], &byIndex[i]);
      MPI_Waitall(kMessages, requests, statuses);
      for (int i = 3; i < kMessages; ++i)
        if (statuses[i].MPI_SOURCE != MPI_ANY_SOURCE)
          report(round, "waitall", i, buffers[i], &statuses[i]);
      MPI_Waitall(kLate, lateRequests, statuses);
      for (int i = 0; i < kLate; ++i) report(round, "late", i, late[i], &statuses[i]);
    }
  }
  MPI_Finalize();
  return 0;
}

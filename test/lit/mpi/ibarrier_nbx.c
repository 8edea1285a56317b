// The nonblocking consensus exchange (NBX) of sparse data: every rank sends
// synchronously to a few others it chooses, receives whatever comes with a
// wildcard probe, and starts MPI_Ibarrier once its own sends have matched.
// It completes only if MPI_Ibarrier returns at once and keeps the rank
// receiving: a barrier that waited for the others at the call would leave
// their synchronous sends to this rank unmatched forever.
// RUN: %mpi-diff %s %t 2 3 4 5
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int compare(const void* a, const void* b) { return *(const int*)a - *(const int*)b; }

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rank r sends to the ranks (r + k*k) % size for k = 1..3, skipping itself.
  int targets[3], payload[3], sends = 0;
  MPI_Request requests[3];
  for (int k = 1; k <= 3; ++k) {
    int to = (rank + k * k) % size;
    if (to == rank) continue;
    targets[sends] = to;
    payload[sends] = rank * 100 + k;
    MPI_Issend(&payload[sends], 1, MPI_INT, to, 5, MPI_COMM_WORLD, &requests[sends]);
    ++sends;
  }
  int received[64], count = 0;
  MPI_Request barrier = MPI_REQUEST_NULL;
  int barrierStarted = 0, done = 0;
  while (!done) {
    int flag;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &status);
    if (flag) {
      MPI_Recv(&received[count++], 1, MPI_INT, status.MPI_SOURCE, 5, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else if (!barrierStarted) {
      int sent;
      MPI_Testall(sends, requests, &sent, MPI_STATUSES_IGNORE);
      if (sent) {
        MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
        barrierStarted = 1;
      }
    } else {
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    }
  }
  qsort(received, count, sizeof(int), compare);
  printf("rank %d sent to", rank);
  for (int i = 0; i < sends; ++i) printf(" %d", targets[i]);
  printf(", received");
  for (int i = 0; i < count; ++i) printf(" %d", received[i]);
  printf("\n");
  MPI_Finalize();
  return 0;
}

// Bursts of nonblocking sends whose sender then blocks, polls or probes
// before its receiver can answer: synergy-run may leave the messages of a
// burst unpublished for a while, and every other MPI call must publish
// them first, or the job hangs. Rank 0 sends bursts of every length up to
// 40 to all other ranks, alternating destinations, and then waits for
// acknowledgements in a different way each round; the receivers check
// the order and content of what they got.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

enum { kMaxBurst = 40 };

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int receivers = size - 1;
  for (int burst = 1; burst <= kMaxBurst; ++burst) {
    if (rank == 0) {
      int values[kMaxBurst];
      MPI_Request requests[kMaxBurst];
      for (int i = 0; i < burst; ++i) {
        values[i] = burst * 1000 + i;
        MPI_Isend(&values[i], 1, MPI_INT, 1 + i % receivers, i % 3, MPI_COMM_WORLD,
                  &requests[i]);
      }
      int acknowledged = 0;
      for (int r = 1; r <= receivers; ++r) {
        int ack = 0;
        if (burst % 3 == 0) {
          MPI_Recv(&ack, 1, MPI_INT, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (burst % 3 == 1) {
          MPI_Request request;
          int done = 0;
          MPI_Irecv(&ack, 1, MPI_INT, r, 99, MPI_COMM_WORLD, &request);
          while (!done) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        } else {
          int found = 0;
          while (!found) MPI_Iprobe(r, 99, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
          MPI_Recv(&ack, 1, MPI_INT, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        acknowledged += ack;
      }
      MPI_Waitall(burst, requests, MPI_STATUSES_IGNORE);
      if (acknowledged != burst) printf("burst %d: %d acknowledged\n", burst, acknowledged);
    } else {
      int expected = 0, wrong = 0;
      for (int i = rank - 1; i < burst; i += receivers) {
        int value;
        MPI_Status status;
        MPI_Recv(&value, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        if (value != burst * 1000 + i || status.MPI_TAG != i % 3) ++wrong;
        ++expected;
      }
      if (wrong) printf("rank %d burst %d: %d out of order\n", rank, burst, wrong);
      MPI_Send(&expected, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) printf("rank 0 sent bursts up to %d\n", kMaxBurst);
  MPI_Finalize();
  return 0;
}

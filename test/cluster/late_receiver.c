// Many large messages that their receiver asks for only late, for
// cluster_test.py's rendezvous-memory case: rank 0 posts 32 MPI_Isend of
// 4 MiB each (128 MiB) to rank 1 on another host, then both meet in a
// barrier, and only then does rank 1 receive them, one at a time into one
// buffer. Sent eagerly, all 128 MiB would wait on rank 1's host; by
// rendezvous only their envelopes do. Rank 1 prints each message's tag,
// count and a hash of its bytes, so that the data is checked against
// OpenMPI as well.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "message_data.h"

enum { kMessages = 32 };
#define kBytes ((size_t)4 << 20)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "late_receiver needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    uint8_t* data = malloc(kMessages * kBytes);
    if (!data) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Request requests[kMessages];
    for (int i = 0; i < kMessages; ++i) {
      fill(data + i * kBytes, kBytes, (uint64_t)i + 1);
      MPI_Isend(data + i * kBytes, (int)kBytes, MPI_BYTE, 1, i, MPI_COMM_WORLD, &requests[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(kMessages, requests, MPI_STATUSES_IGNORE);
    free(data);
  } else {
    uint8_t* buffer = malloc(kBytes);
    if (!buffer) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < kMessages; ++i) {
      MPI_Status status;
      MPI_Recv(buffer, (int)kBytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      printf("got tag %d: count %d hash %016llx\n", status.MPI_TAG, count,
             (unsigned long long)hash(buffer, kBytes));
    }
    free(buffer);
  }
  MPI_Finalize();
  return 0;
}

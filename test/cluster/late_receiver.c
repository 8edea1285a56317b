// Many messages that their receiver asks for only late, for
// cluster_test.py's rendezvous-memory and eager-credit-memory cases: rank 0
// posts MESSAGES MPI_Isend of BYTES each (by default 32 of 4 MiB, 128 MiB)
// to rank 1 on another host, then both meet in a barrier, and only then
// does rank 1 receive them, one at a time into one buffer. Sent eagerly,
// all of them would wait on rank 1's host; by rendezvous (4 MiB) or
// within the eager credit (512 KiB) only their envelopes and the credit's
// worth do. Rank 1 prints each message's tag, count and a hash of its
// bytes, so that the data is checked against OpenMPI as well.
//
// usage: late_receiver [MESSAGES BYTES]
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "message_data.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int messages = argc == 3 ? atoi(argv[1]) : 32;
  size_t bytes = argc == 3 ? (size_t)atol(argv[2]) : (size_t)4 << 20;
  if (messages < 1 || messages > 4096 || bytes < 1 || bytes > ((size_t)64 << 20) ||
      bytes * (size_t)messages > ((size_t)1 << 30)) {
    fprintf(stderr, "late_receiver: at most 4096 messages of 64 MiB, 1 GiB in all\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "late_receiver needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    uint8_t* data = malloc(messages * bytes);
    if (!data) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)messages);
    if (!requests) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < messages; ++i) {
      fill(data + i * bytes, bytes, (uint64_t)i + 1);
      MPI_Isend(data + i * bytes, (int)bytes, MPI_BYTE, 1, i, MPI_COMM_WORLD, &requests[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(messages, requests, MPI_STATUSES_IGNORE);
    free(requests);
    free(data);
  } else {
    uint8_t* buffer = malloc(bytes);
    if (!buffer) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < messages; ++i) {
      MPI_Status status;
      MPI_Recv(buffer, (int)bytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      printf("got tag %d: count %d hash %016llx\n", status.MPI_TAG, count,
             (unsigned long long)hash(buffer, bytes));
    }
    free(buffer);
  }
  MPI_Finalize();
  return 0;
}

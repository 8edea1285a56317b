// Messages larger than one transport frame (64 MiB) between ranks on three
// hosts, for cluster_test.py's large-messages case, which compares the
// output with OpenMPI's:
//   rank 0 -> 1: three MPI_Isend (1 KiB, 96 MiB, 1 KiB) that rank 1 receives
//                last tag first, so the 96 MiB message waits unmatched
//                behind the first and ahead of the third;
//   rank 1 -> 2: an 80 MiB MPI_Ssend;
//   rank 2 -> 0: 66 MiB of data in a strided MPI_Type_vector, received as
//                plain ints.
// Each receiver prints the tag, the count MPI_Get_count reports and a hash
// of the bytes it received; the data are pseudo-random per (sender, tag),
// so a lost, repeated, reordered or misplaced frame changes the hash.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message_data.h"

enum { kSmallBytes = 1024 };
#define kLargeBytes ((size_t)96 << 20)
#define kSyncBytes ((size_t)80 << 20)
// Blocks of 8 ints every 12 ints: 66 MiB of data in a 99 MiB buffer.
#define kVectorBlocks ((int)((66u << 20) / 32))

static void report(int rank, const MPI_Status* status, MPI_Datatype type, const void* data,
                   size_t bytes) {
  int count = 0;
  MPI_Get_count(status, type, &count);
  printf("rank %d got tag %d from %d: count %d hash %016llx\n", rank, status->MPI_TAG,
         status->MPI_SOURCE, count, (unsigned long long)hash(data, bytes));
}

static uint8_t* allocate(size_t bytes) {
  uint8_t* data = malloc(bytes);
  if (!data) {
    fprintf(stderr, "out of memory for %zu bytes\n", bytes);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return data;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0) fprintf(stderr, "large_messages needs 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Datatype strided;
  MPI_Type_vector(kVectorBlocks, 8, 12, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  size_t stridedBufferBytes = (size_t)kVectorBlocks * 12 * sizeof(int);
  size_t stridedDataBytes = (size_t)kVectorBlocks * 8 * sizeof(int);
  MPI_Status status;

  if (rank == 0) {
    uint8_t* first = allocate(kSmallBytes);
    uint8_t* large = allocate(kLargeBytes);
    uint8_t* last = allocate(kSmallBytes);
    fill(first, kSmallBytes, 1);
    fill(large, kLargeBytes, 2);
    fill(last, kSmallBytes, 3);
    MPI_Request requests[3];
    MPI_Isend(first, kSmallBytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(large, (int)kLargeBytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(last, kSmallBytes, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &requests[2]);
    MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
    free(first);
    free(large);
    free(last);
    uint8_t* received = allocate(stridedDataBytes);
    MPI_Recv(received, (int)(stridedDataBytes / sizeof(int)), MPI_INT, 2, 5, MPI_COMM_WORLD,
             &status);
    report(rank, &status, MPI_INT, received, stridedDataBytes);
    free(received);
  } else if (rank == 1) {
    uint8_t* small = allocate(kSmallBytes);
    MPI_Recv(small, kSmallBytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &status);
    report(rank, &status, MPI_BYTE, small, kSmallBytes);
    uint8_t* large = allocate(kLargeBytes);
    MPI_Recv(large, (int)kLargeBytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &status);
    report(rank, &status, MPI_BYTE, large, kLargeBytes);
    free(large);
    MPI_Recv(small, kSmallBytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    report(rank, &status, MPI_BYTE, small, kSmallBytes);
    free(small);
    uint8_t* sync = allocate(kSyncBytes);
    fill(sync, kSyncBytes, 4);
    MPI_Ssend(sync, (int)kSyncBytes, MPI_BYTE, 2, 4, MPI_COMM_WORLD);
    free(sync);
  } else {
    uint8_t* sync = allocate(kSyncBytes);
    MPI_Recv(sync, (int)kSyncBytes, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &status);
    report(rank, &status, MPI_BYTE, sync, kSyncBytes);
    free(sync);
    uint8_t* buffer = allocate(stridedBufferBytes);
    fill(buffer, stridedBufferBytes, 5);
    MPI_Request request;
    MPI_Isend(buffer, 1, strided, 0, 5, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    free(buffer);
  }
  MPI_Type_free(&strided);
  MPI_Finalize();
  return 0;
}

// Receive order with eager and rendezvous messages mixed, for
// cluster_test.py's rendezvous-order case (np 3, one rank a host): ranks 1
// and 2 each send rank 0 twelve messages with MPI_Isend and MPI_Issend,
// small (eager) and large (rendezvous) in turn, tags 0-2 in turn. Rank 0
// takes them out of order: first the first tag-2 message of each sender
// (passing an unmatched small and large one), then some by MPI_Probe on
// MPI_ANY_SOURCE/MPI_ANY_TAG and a receive of what it found, then the rest
// by MPI_Recv on MPI_ANY_SOURCE/MPI_ANY_TAG, every other one into a
// strided type. Non-overtaking order fixes what each receive gets from each
// sender, though not how the senders interleave, so rank 0 prints each
// sender's messages in the order it received them: sequence number, tag,
// count and a hash of the data.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Large ones are just over 1 MiB, the default rendezvous threshold.
enum { kMessages = 12, kProbed = 8, kMaxInts = 290000 };

static int intsOf(int sequence) {
  return sequence % 2 ? 270000 + 1000 * sequence : 10 + sequence;
}

static void fill(int32_t* data, int ints, int source, int sequence) {
  uint32_t state = (uint32_t)(source * 1000 + sequence) * 2654435761u + 1;
  data[0] = sequence;
  for (int i = 1; i < ints; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    data[i] = (int32_t)state;
  }
}

static uint64_t hash(const int32_t* data, int ints, int stride) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < ints; ++i) h = (h ^ (uint32_t)data[i * stride]) * 1099511628211ull;
  return h;
}

static char lines[3][kMessages][96];
static int lineCount[3];

static void record(const MPI_Status* status, const int32_t* data, int stride) {
  int ints = 0;
  MPI_Get_count(status, MPI_INT, &ints);
  int source = status->MPI_SOURCE;
  snprintf(lines[source][lineCount[source]++], sizeof lines[0][0],
           "from %d: seq %d tag %d ints %d hash %016llx", source, data[0], status->MPI_TAG, ints,
           (unsigned long long)hash(data, ints, stride));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0) fprintf(stderr, "mixed_order needs 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank != 0) {
    int32_t* data[kMessages];
    MPI_Request requests[kMessages];
    for (int i = 0; i < kMessages; ++i) {
      data[i] = malloc(sizeof(int32_t) * (size_t)intsOf(i));
      fill(data[i], intsOf(i), rank, i);
      if (i % 4 == 3)
        MPI_Issend(data[i], intsOf(i), MPI_INT, 0, i % 3, MPI_COMM_WORLD, &requests[i]);
      else
        MPI_Isend(data[i], intsOf(i), MPI_INT, 0, i % 3, MPI_COMM_WORLD, &requests[i]);
    }
    MPI_Waitall(kMessages, requests, MPI_STATUSES_IGNORE);
    for (int i = 0; i < kMessages; ++i) free(data[i]);
  } else {
    int32_t* buffer = malloc(sizeof(int32_t) * kMaxInts);
    int32_t* strided = malloc(sizeof(int32_t) * 2 * kMaxInts);
    MPI_Datatype everyOther;
    MPI_Type_vector(kMaxInts, 1, 2, MPI_INT, &everyOther);
    MPI_Type_commit(&everyOther);
    MPI_Status status;
    for (int source = 1; source <= 2; ++source) {
      MPI_Recv(buffer, kMaxInts, MPI_INT, source, 2, MPI_COMM_WORLD, &status);
      record(&status, buffer, 1);
    }
    for (int i = 0; i < kProbed; ++i) {
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int ints = 0;
      MPI_Get_count(&status, MPI_INT, &ints);
      int32_t* exact = malloc(sizeof(int32_t) * (size_t)ints);
      MPI_Recv(exact, ints, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, &status);
      record(&status, exact, 1);
      free(exact);
    }
    for (int i = 2 + kProbed; i < 2 * kMessages; ++i) {
      if (i % 2) {
        MPI_Recv(strided, 1, everyOther, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        record(&status, strided, 2);
      } else {
        MPI_Recv(buffer, kMaxInts, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        record(&status, buffer, 1);
      }
    }
    for (int source = 1; source <= 2; ++source)
      for (int i = 0; i < lineCount[source]; ++i) printf("%s\n", lines[source][i]);
    MPI_Type_free(&everyOther);
    free(buffer);
    free(strided);
  }
  MPI_Finalize();
  return 0;
}

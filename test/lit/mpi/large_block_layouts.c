// MPI_Alltoall and MPI_Allreduce of large blocks in every layout the
// cross-host paths treat apart (mpi/HostCollectives.cpp): an alltoall
// bundle goes from and lands in a member's buffers when its host has one
// member and the datatype is contiguous, and is packed otherwise; a large
// allreduce runs between the host leaders as a reduce-scatter then an
// allgather, whose result lands in the leader's receive buffer when that
// is contiguous. So: contiguous and strided send and receive types,
// MPI_IN_PLACE, counts that no number of hosts divides, fewer instances
// than hosts, and the holes of a strided receive type, which must stay as
// they were; on MPI_COMM_WORLD and on a communicator of reversed ranks, so
// that a host's members are no run of consecutive ranks. Every rank prints
// a digest of each result.
// RUN: %mpi-diff %s %t 1 2 3 4 5
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBlockInts = 9001, kStrided = 3000, kSumInts = 50001, kPairs = 10007, kWide = 10000 };

static long long digestOf(const int* values, long long count) {
  long long digest = 0;
  for (long long i = 0; i < count; ++i)
    digest = ((digest * 31 + values[i] + 7) % 1000000007 + 1000000007) % 1000000007;
  return digest;
}

// inout += in for pairs of ints with a hole after each (the `holed` type
// below): a user-defined op, since OpenMPI refuses predefined ones on such
// a type.
static void addPairs(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (int k = 0; k < *len; ++k) {
    b[4 * k] += a[4 * k];
    b[4 * k + 2] += a[4 * k + 2];
  }
}

// inout = min(in, inout) over instances of kWide ints (the `wide` type
// below), a user-defined op for the same reason.
static void minWide(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (long long i = 0; i < (long long)*len * kWide; ++i)
    if (a[i] < b[i]) b[i] = a[i];
}

static void alltoalls(MPI_Comm comm, const char* name, int worldRank) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  long long ints = (long long)kBlockInts * size;
  int* send = malloc(sizeof(int) * 2 * ints);
  int* recv = malloc(sizeof(int) * 2 * ints);
  for (long long i = 0; i < 2 * ints; ++i) send[i] = (int)((rank * 1000003LL + i * 7) % 99991);

  for (long long i = 0; i < 2 * ints; ++i) recv[i] = -1;
  MPI_Alltoall(send, kBlockInts, MPI_INT, recv, kBlockInts, MPI_INT, comm);
  printf("%s rank %d: alltoall contiguous %lld\n", name, worldRank, digestOf(recv, ints));

  for (long long i = 0; i < ints; ++i) recv[i] = send[i] ^ 5;
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, kBlockInts, MPI_INT, comm);
  printf("%s rank %d: alltoall in place %lld\n", name, worldRank, digestOf(recv, ints));

  // Every other int of 2 * kStrided, as 3 instances of a vector type
  // resized to tile: kStrided ints a block, with holes between them.
  MPI_Datatype vector, strided;
  MPI_Type_vector(kStrided / 3, 1, 2, MPI_INT, &vector);
  MPI_Type_create_resized(vector, 0, (MPI_Aint)sizeof(int) * 2 * (kStrided / 3), &strided);
  MPI_Type_commit(&strided);
  for (long long i = 0; i < 2 * ints; ++i) recv[i] = -1;
  MPI_Alltoall(send, 3, strided, recv, kStrided, MPI_INT, comm);
  printf("%s rank %d: alltoall strided to contiguous %lld\n", name, worldRank,
         digestOf(recv, (long long)kStrided * size));
  for (long long i = 0; i < 2 * ints; ++i) recv[i] = -1;
  MPI_Alltoall(send, kStrided, MPI_INT, recv, 3, strided, comm);
  printf("%s rank %d: alltoall contiguous to strided %lld\n", name, worldRank,
         digestOf(recv, 2LL * kStrided * size));
  MPI_Type_free(&vector);
  MPI_Type_free(&strided);
  free(send);
  free(recv);
}

static void allreduces(MPI_Comm comm, const char* name, int worldRank) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int* mine = malloc(sizeof(int) * 4 * kSumInts);
  int* sum = malloc(sizeof(int) * 4 * kSumInts);
  for (int i = 0; i < 4 * kSumInts; ++i) mine[i] = (rank * 37 + i * 11) % 10007 - 5000;

  MPI_Allreduce(mine, sum, kSumInts, MPI_INT, MPI_SUM, comm);
  printf("%s rank %d: allreduce sum %lld\n", name, worldRank, digestOf(sum, kSumInts));

  for (int i = 0; i < kSumInts; ++i) sum[i] = mine[i] * 3 + 1;
  if (rank % 2 == 1)
    MPI_Allreduce(MPI_IN_PLACE, sum, kSumInts, MPI_INT, MPI_MAX, comm);
  else
    MPI_Allreduce(sum, sum + kSumInts, kSumInts, MPI_INT, MPI_MAX, comm);
  printf("%s rank %d: allreduce max%s %lld\n", name, worldRank,
         rank % 2 == 1 ? " in place" : "",
         digestOf(sum + (rank % 2 == 1 ? 0 : kSumInts), kSumInts));

  // Pairs of ints with a hole after each: the holes of the result keep
  // what they held.
  MPI_Datatype pair, holed;
  MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
  MPI_Type_create_resized(pair, 0, (MPI_Aint)sizeof(int) * 4, &holed);
  MPI_Type_commit(&holed);
  MPI_Op addOp;
  MPI_Op_create(addPairs, 1, &addOp);
  for (int i = 0; i < 4 * kPairs; ++i) sum[i] = -i;
  MPI_Allreduce(mine, sum, kPairs, holed, addOp, comm);
  MPI_Op_free(&addOp);
  printf("%s rank %d: allreduce strided %lld\n", name, worldRank, digestOf(sum, 4LL * kPairs));
  MPI_Type_free(&pair);
  MPI_Type_free(&holed);

  // Two instances of 40000 bytes: fewer instances than hosts.
  MPI_Datatype wide;
  MPI_Type_contiguous(kWide, MPI_INT, &wide);
  MPI_Type_commit(&wide);
  MPI_Op minOp;
  MPI_Op_create(minWide, 1, &minOp);
  MPI_Allreduce(mine, sum, 2, wide, minOp, comm);
  MPI_Op_free(&minOp);
  printf("%s rank %d: allreduce wide %lld\n", name, worldRank, digestOf(sum, 2LL * kWide));
  MPI_Type_free(&wide);
  free(mine);
  free(sum);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  alltoalls(MPI_COMM_WORLD, "world", rank);
  alltoalls(reversed, "reversed", rank);
  allreduces(MPI_COMM_WORLD, "world", rank);
  allreduces(reversed, "reversed", rank);
  MPI_Comm_free(&reversed);
  MPI_Finalize();
  return 0;
}

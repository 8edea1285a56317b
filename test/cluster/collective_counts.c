// A cluster job for cluster_test.py's collective-counts case: each
// collective once on MPI_COMM_WORLD, every result printed, so that the
// output can be compared with OpenMPI's while the runtime's count of
// messages between hosts (SYNERGY_MPI_STATS=1) is checked per collective.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* all = calloc((size_t)size * 2, sizeof(int));
  int* more = calloc((size_t)size * 2, sizeof(int));

  MPI_Barrier(MPI_COMM_WORLD);

  int word = rank == 2 ? 4242 : -1;
  MPI_Bcast(&word, 1, MPI_INT, 2, MPI_COMM_WORLD);
  printf("rank %d bcast %d\n", rank, word);

  long value = 1000 + rank * rank, total = 0;
  MPI_Reduce(&value, &total, 1, MPI_LONG, MPI_SUM, 1, MPI_COMM_WORLD);
  if (rank == 1) printf("rank %d reduce %ld\n", rank, total);

  double maximum = 0, mine = rank * 1.5 - 2;
  MPI_Allreduce(&mine, &maximum, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  printf("rank %d allreduce %.2f\n", rank, maximum);

  // 128 KiB: a reduce-scatter then an allgather between the hosts' leaders
  // (a smaller one over three hosts is a reduce to one leader and a bcast).
  enum { kLargeInts = 32768 };
  int* contribution = malloc(sizeof(int) * kLargeInts);
  int* sums = malloc(sizeof(int) * kLargeInts);
  for (int i = 0; i < kLargeInts; ++i) contribution[i] = rank * 7 + i % 13;
  MPI_Allreduce(contribution, sums, kLargeInts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  long long weighted = 0;
  for (int i = 0; i < kLargeInts; ++i) weighted += (long long)sums[i] * (i % 5 + 1);
  printf("rank %d large allreduce %lld %d %d\n", rank, weighted, sums[0], sums[kLargeInts - 1]);
  free(contribution);
  free(sums);

  int pair[2] = {rank, rank * 10};
  MPI_Gather(pair, 2, MPI_INT, all, 2, MPI_INT, size - 1, MPI_COMM_WORLD);
  if (rank == size - 1)
    for (int i = 0; i < 2 * size; ++i) printf("rank %d gather[%d] %d\n", rank, i, all[i]);

  MPI_Allgather(pair, 2, MPI_INT, more, 2, MPI_INT, MPI_COMM_WORLD);
  int checksum = 0;
  for (int i = 0; i < 2 * size; ++i) checksum = checksum * 7 + more[i];
  printf("rank %d allgather %d\n", rank, checksum);

  for (int i = 0; i < 2 * size; ++i) all[i] = 100 * i;
  int got[2] = {0, 0};
  MPI_Scatter(all, 2, MPI_INT, got, 2, MPI_INT, 0, MPI_COMM_WORLD);
  printf("rank %d scatter %d %d\n", rank, got[0], got[1]);

  for (int i = 0; i < 2 * size; ++i) all[i] = rank * 1000 + i;
  MPI_Alltoall(all, 2, MPI_INT, more, 2, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < 2 * size; ++i) printf("rank %d alltoall[%d] %d\n", rank, i, more[i]);

  int prefix = 0;
  MPI_Scan(&rank, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d scan %d\n", rank, prefix);
  prefix = -1;
  MPI_Exscan(&rank, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank > 0) printf("rank %d exscan %d\n", rank, prefix);

  for (int i = 0; i < 2 * size; ++i) all[i] = rank + i;
  MPI_Reduce_scatter_block(all, got, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d reduce_scatter_block %d %d\n", rank, got[0], got[1]);

  int* counts = calloc((size_t)size, sizeof(int));
  int* displs = calloc((size_t)size, sizeof(int));
  for (int i = 0; i < size; ++i) {
    counts[i] = i % 2 + 1;
    displs[i] = 2 * i;
  }
  MPI_Allgatherv(pair, counts[rank], MPI_INT, more, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; ++i)
    for (int j = 0; j < counts[i]; ++j)
      printf("rank %d allgatherv[%d] %d\n", rank, displs[i] + j, more[displs[i] + j]);

  // The v-forms with uneven counts, rooted at rank 1 and rank size - 2,
  // which at np 5 lead no host: member i gathers and is sent i % 3 ints
  // (rank 0 none at all).
  int* wide = calloc((size_t)size * 3, sizeof(int));
  int* spread = calloc((size_t)size * 3, sizeof(int));
  for (int i = 0; i < size; ++i) {
    counts[i] = i % 3;
    displs[i] = 3 * (size - 1 - i);
  }
  int three[3] = {rank * 7, rank * 7 + 1, rank * 7 + 2};
  for (int i = 0; i < 3 * size; ++i) wide[i] = -1;
  MPI_Gatherv(three, rank % 3, MPI_INT, wide, counts, displs, MPI_INT, 1, MPI_COMM_WORLD);
  if (rank == 1)
    for (int i = 0; i < 3 * size; ++i) printf("rank %d gatherv[%d] %d\n", rank, i, wide[i]);

  for (int i = 0; i < 3 * size; ++i) wide[i] = rank * 100 + i;
  three[0] = three[1] = three[2] = -1;
  MPI_Scatterv(wide, counts, displs, MPI_INT, three, rank % 3, MPI_INT, size - 2,
               MPI_COMM_WORLD);
  printf("rank %d scatterv %d %d %d\n", rank, three[0], three[1], three[2]);

  // Alltoallv: rank r sends (r + j) % 3 ints to rank j, blocks in reverse
  // order in both buffers; then the same in place.
  int* sendCounts = calloc((size_t)size, sizeof(int));
  int* sendDispls = calloc((size_t)size, sizeof(int));
  for (int j = 0; j < size; ++j) {
    sendCounts[j] = (rank + j) % 3;
    sendDispls[j] = 3 * (size - 1 - j);
    counts[j] = (j + rank) % 3;
  }
  for (int i = 0; i < 3 * size; ++i) {
    wide[i] = rank * 1000 + i;
    spread[i] = -1;
  }
  MPI_Alltoallv(wide, sendCounts, sendDispls, MPI_INT, spread, counts, displs, MPI_INT,
                MPI_COMM_WORLD);
  for (int i = 0; i < 3 * size; ++i) printf("rank %d alltoallv[%d] %d\n", rank, i, spread[i]);
  MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, spread, counts, displs, MPI_INT,
                MPI_COMM_WORLD);
  for (int i = 0; i < 3 * size; ++i)
    printf("rank %d alltoallv in place[%d] %d\n", rank, i, spread[i]);
  free(sendCounts);
  free(sendDispls);
  free(wide);
  free(spread);

  // Two colours, keys reversing the order: the new communicators' ranks.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
  int halfRank;
  MPI_Comm_rank(half, &halfRank);
  printf("rank %d split %d\n", rank, halfRank);
  MPI_Comm_free(&half);

  free(counts);
  free(displs);
  free(all);
  free(more);
  MPI_Finalize();
  return 0;
}

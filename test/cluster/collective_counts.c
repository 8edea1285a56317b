// A cluster job for cluster_test.py's collective-counts case: each plain
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

  free(all);
  free(more);
  MPI_Finalize();
  return 0;
}

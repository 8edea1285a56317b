// A program whose only collective is MPI_Allreduce on MPI_COMM_WORLD: each
// one is a barrier control point, so with --checkpoint-every 0 every rank is
// suspended, snapshotted and rewound into a fresh instance at each of them.
// The output must be what OpenMPI prints for an undisturbed run; the reduced
// values (in the receive buffer when the snapshot is taken), heap and
// static data and locals across a recursion must all survive the rewind.
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t 2 3 4
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 3 --checkpoint-every 0 %t/granule.wasm \
// RUN:   2>&1 >/dev/null | FileCheck %s
// Two allreduces in each of five rounds and one in the recursion: eleven
// checkpoints, none skipped.
// CHECK-NOT: note:
// CHECK: synergy-run: checkpoints: 11 taken, 0 skipped, 0 bytes written
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long long carried = 11;

static long long descend(int level, long long acc, int rank) {
  if (level == 0) {
    long long total = 0;
    MPI_Allreduce(&acc, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total + rank;
  }
  long long mine = acc * 5 + level + rank;
  return descend(level - 1, mine % 1000003, rank) + mine % 13;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = 3000;
  double* values = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) values[i] = (i % 17) * 0.5 + rank;
  for (int round = 0; round < 5; ++round) {
    double local[2] = {0, 0};
    for (int i = 0; i < n; ++i) {
      local[0] += values[i] * (round + 1);
      if (values[i] > local[1]) local[1] = values[i];
    }
    double sum = 0;
    MPI_Allreduce(&local[0], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, local + 1, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    carried = (carried * 31 + (long long)sum) % 1000000007;
    for (int i = 0; i < n; ++i) values[i] = values[i] * 0.5 + round;
    printf("rank %d round %d sum %.1f max %.1f carried %lld\n", rank, round, sum, local[1],
           carried);
  }
  long long deep = descend(20, rank + 1, rank);
  printf("rank %d of %d deep %lld carried %lld\n", rank, size, deep, carried);
  free(values);
  MPI_Finalize();
  return 0;
}

// Suspends every rank at each barrier on MPI_COMM_WORLD (--checkpoint-every
// 0), snapshots it and rewinds it into a fresh instance; the output must be
// what OpenMPI prints for an undisturbed run. State lives everywhere a
// rewind must bring it back: heap, static data, the shadow stack (a local
// array whose address is taken), wasm locals across several frames and a
// recursion, and a message sent right after a rewind.
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t 1 2 3 4
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 3 --checkpoint-every 0 %t/granule.wasm \
// RUN:   2>&1 >/dev/null | FileCheck %s
// Eight barriers in all, each a checkpoint; nothing skipped.
// CHECK: synergy-run: checkpoints: 8 taken, 0 skipped, 0 bytes written
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int counter = 7;

static long depth(int level, long acc, int rank) {
  if (level == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    return acc + rank;
  }
  long mine = acc * 3 + level;
  long below = depth(level - 1, mine, rank);
  return below + mine % 11;
}

static void mix(int* data, int n, int rank) {
  int scratch[64];
  for (int i = 0; i < 64; ++i) scratch[i] = i * rank + counter;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) data[i] += scratch[i % 64];
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = 5000;
  int* data = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i) data[i] = i ^ rank;
  for (int round = 0; round < 4; ++round) {
    mix(data, n, rank);
    counter += round;
  }
  long deep = depth(12, 1, rank);
  MPI_Barrier(MPI_COMM_WORLD);
  int token = rank * 100 + counter;
  int from = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 3, &from, 1, MPI_INT,
               (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += data[i] * (long)(i % 7 + 1);
  char* text = malloc(64);
  snprintf(text, 64, "rank %d sum %ld deep %ld got %d", rank, sum, deep, from);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%s\n", text);
  free(text);
  free(data);
  MPI_Finalize();
  return 0;
}

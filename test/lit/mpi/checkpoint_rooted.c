// MPI_Bcast, MPI_Reduce, MPI_Gather and MPI_Allgather on MPI_COMM_WORLD are
// barrier control points too: with --checkpoint-every 0 the job is
// suspended and rewound into fresh instances after each, and the output
// must be what OpenMPI prints for an undisturbed run. A collective on a
// communicator of its own (a dup) is no control point.
//
// A rooted collective lets a rank leave before the others arrive: here
// rank 1 leaves its MPI_Reduce while the last rank still sends it a
// message before its own MPI_Reduce. That message is in flight at the
// control point, so the job must not be suspended there: the checkpoint is
// skipped with a note naming rank 1's mailbox, and the message is still
// received afterwards.
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t 2 3 4
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 3 --checkpoint-every 0 %t/granule.wasm \
// RUN:   2>&1 >/dev/null | FileCheck %s
// Three rounds of four collectives, then the Reduce with a message in
// flight, then a final Bcast: 13 taken, 1 skipped.
// CHECK: synergy-run: note: checkpoint skipped at this control point (rank 1: a message is still waiting to be received)
// CHECK-NOT: note:
// CHECK: synergy-run: checkpoints: 13 taken, 1 skipped, 0 bytes written
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm twin;
  MPI_Comm_dup(MPI_COMM_WORLD, &twin);
  int n = 2000;
  int* block = malloc(sizeof(int) * n);
  int* everyone = malloc(sizeof(int) * n * size);
  long long seed = 0;
  for (int round = 0; round < 3; ++round) {
    int root = round % size;
    if (rank == root) seed = 1000 * (round + 1) + 7;
    MPI_Bcast(&seed, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) block[i] = (int)((seed + i * (rank + 3)) % 9973);
    long long local = 0, reduced = -1;
    for (int i = 0; i < n; ++i) local += block[i];
    MPI_Reduce(&local, &reduced, 1, MPI_LONG_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    MPI_Gather(block, 4, MPI_INT, everyone, 4, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Allgather(block + n / 2, n / size, MPI_INT, everyone, n / size, MPI_INT, MPI_COMM_WORLD);
    long long check = 0;
    for (int i = 0; i < n / size * size; ++i) check = (check * 7 + everyone[i]) % 1000003;
    int twinMax = 0;
    MPI_Allreduce(&block[round], &twinMax, 1, MPI_INT, MPI_MAX, twin);
    if (rank == root) printf("round %d root %d reduced %lld\n", round, root, reduced);
    printf("rank %d round %d seed %lld check %lld twin max %d\n", rank, round, seed, check,
           twinMax);
  }
  int last = size - 1;
  int note = -1;
  if (rank == last && last != 1) {
    note = 4242 + last;
    MPI_Send(&note, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
  }
  long long one = 1, ranks = 0;
  MPI_Reduce(&one, &ranks, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 1 && last != 1) MPI_Recv(&note, 1, MPI_INT, last, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) printf("ranks counted %lld\n", ranks);
  MPI_Bcast(&seed, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  printf("rank %d done seed %lld note %d\n", rank, seed, note);
  MPI_Comm_free(&twin);
  free(block);
  free(everyone);
  MPI_Finalize();
  return 0;
}

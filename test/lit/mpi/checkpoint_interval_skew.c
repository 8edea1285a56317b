// At an interval, on one host, the ranks do not meet at every barrier
// control point: the first rank to find a checkpoint due names the next
// control point no rank has passed, and every rank stops there
// (CheckpointCoordinator.h). Rooted collectives let ranks drift apart by
// several control points: a broadcast's root leaves at once, and here the
// root of each round sleeps before its broadcast, so that a checkpoint
// (every 1 ms) falls due in every round while the others stand at
// different control points. A rank that stopped at another control point
// than the rest would leave the job waiting forever (the deadlock check
// ends it); one rewound with the wrong state would print something else
// than OpenMPI does.
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0.001 %s %t 2 3 4
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 3 --checkpoint-every 0.001 \
// RUN:   %t/granule.wasm 2>&1 >/dev/null | FileCheck %s
// CHECK: synergy-run: checkpoints: {{[1-9][0-9]*}} taken, 0 skipped, 0 bytes written
//
// Where no checkpoint falls due, the ranks meet at no control point: each
// counts it and goes on.
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 3 --checkpoint-every 3600 \
// RUN:   %t/granule.wasm 2>&1 >/dev/null | FileCheck %s --check-prefix=NONE-DUE
// NONE-DUE: synergy-run: checkpoint meetings: the ranks met at 0 of {{[1-9][0-9]*}} barrier control points
//
// With a directory: killed right after its third checkpoint file, the job
// resumes from it to an undisturbed run's output.
// RUN: rm -rf %t/ck && mkdir %t/ck
// RUN: %synergy-run -np 3 %t/granule.wasm | sort > %t/plain.out
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=3 not --crash %synergy-run -np 3 \
// RUN:   --checkpoint-every 0.001 --checkpoint-dir %t/ck %t/granule.wasm > %t/killed.out
// RUN: %synergy-run --resume %t/ck >> %t/killed.out
// RUN: sort %t/killed.out | cmp %t/plain.out -
//
// Resumed with --checkpoint-every, the job goes on checkpointing at the
// interval from the control point it resumed at, where every rank's count
// starts again (a rewound rank does not count the control point it returns
// from): killed after three more checkpoints, it resumes from the latest to
// an undisturbed run's output; resumed from there to its end at the
// interval instead, it takes checkpoints, skips none and ends the same.
// RUN: rm -rf %t/again %t/again-copy && mkdir %t/again
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=3 not --crash %synergy-run -np 3 \
// RUN:   --checkpoint-every 0.001 --checkpoint-dir %t/again %t/granule.wasm > %t/again.out
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=3 not --crash %synergy-run --resume %t/again \
// RUN:   --checkpoint-every 0.001 >> %t/again.out
// RUN: cp -r %t/again %t/again-copy && cp %t/again.out %t/again-copy.out
// RUN: %synergy-run --resume %t/again >> %t/again.out
// RUN: sort %t/again.out | cmp %t/plain.out -
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run --resume %t/again-copy \
// RUN:   --checkpoint-every 0.001 >> %t/again-copy.out 2> %t/again-copy.err
// RUN: sort %t/again-copy.out | cmp %t/plain.out -
// RUN: FileCheck --check-prefix=RESUMED %s < %t/again-copy.err
// RESUMED: synergy-run: checkpoints: {{[1-9][0-9]*}} taken, 0 skipped, {{[1-9][0-9]*}} bytes written
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { kRounds = 24, kValues = 512 };
  int* values = malloc(sizeof(int) * kValues);
  int* gathered = malloc(sizeof(int) * size);
  for (int i = 0; i < kValues; ++i) values[i] = (rank + 1) * (i + 3);
  long long seed = 11;
  for (int round = 0; round < kRounds; ++round) {
    int root = round % size;
    if (rank == root) {
      usleep(2000);
      seed = seed * 31 + round;
    }
    MPI_Bcast(&seed, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD);
    long long local = 0;
    for (int i = 0; i < kValues; ++i) {
      values[i] = (int)((values[i] * 7 + seed + i) % 100003);
      local += values[i];
    }
    long long total = 0;
    MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    int mine = (int)(local % 1000);
    MPI_Gather(&mine, 1, MPI_INT, gathered, 1, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root) {
      long long check = 0;
      for (int r = 0; r < size; ++r) check = check * 1009 + gathered[r];
      printf("round %d root %d total %lld check %lld\n", round, root, total, check);
    }
  }
  printf("rank %d seed %lld first %d\n", rank, seed, values[0]);
  free(values);
  free(gathered);
  MPI_Finalize();
  return 0;
}

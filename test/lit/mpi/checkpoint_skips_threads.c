// A rank whose memory is shared with thread granules (here the OpenMP
// workers of an earlier parallel region, which the pool keeps) cannot be
// unwound: every checkpoint is skipped with a note and the run's output is
// unchanged.
// RUN: %synergy-cc -O2 -fopenmp %s -o %t.wasm
// RUN: env OMP_NUM_THREADS=2 %synergy-run -np 2 %t.wasm | sort > %t.plain
// RUN: env OMP_NUM_THREADS=2 SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   %t.wasm 2> %t.err | sort > %t.checkpointed
// RUN: cmp %t.plain %t.checkpointed
// RUN: FileCheck %s < %t.err
// CHECK: synergy-run: note: checkpoint skipped at this control point (rank {{[0-9]}}: a granule that shares its memory with threads cannot be unwound)
// CHECK: synergy-run: checkpoints: 0 taken, 1 skipped, 0 bytes written
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < 1000; ++i) sum += i * (rank + 1);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d sum %ld\n", rank, sum);
  MPI_Finalize();
  return 0;
}

// --tag-output prefixes every line with the rank as mpirun --tag-output
// does, for stdout and stderr. Lines from different ranks never mix, even
// long output written in many pieces (mpirun itself splits those, so the
// long run is checked on its own).
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run -np 3 --tag-output %t.wasm 2>%t.err | sort > %t.out
// RUN: mpicc %s -o %t.native
// RUN: mpirun --allow-run-as-root --oversubscribe --tag-output -np 3 %t.native 2>/dev/null | sort > %t.expected
// RUN: diff %t.expected %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %synergy-run -np 4 --tag-output %t.wasm long 2>/dev/null | FileCheck %s --check-prefix=LONG
// ERR-DAG: [1,1]<stderr>:rank 1 complains
// ERR-DAG: [1,2]<stderr>:rank 2 complains
// LONG-NOT: x[1,
// LONG: [1,{{[0-3]}}]<stdout>:rank {{[0-3]}} line 199 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{{$}}
// LONG-NOT: x[1,
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int lines = argc > 1 ? 200 : 10;
  for (int line = 0; line < lines; ++line) {
    printf("rank %d line %d ", rank, line);
    for (int i = 0; i < 100; ++i) putchar('x');
    printf("\n");
  }
  if (rank > 0) fprintf(stderr, "rank %d complains\n", rank);
  MPI_Finalize();
  return 0;
}

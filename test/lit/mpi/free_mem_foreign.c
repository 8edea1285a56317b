// MPI_Free_mem of memory MPI_Alloc_mem did not hand out (OpenMPI passes it
// to free() and crashes) raises MPI_ERR_BASE and frees nothing: under
// MPI_ERRORS_RETURN the program goes on with its heap intact; under the
// default handler the job ends with a message naming the call.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 %s -o %t/free_mem.wasm
// RUN: %synergy-run -np 2 %t/free_mem.wasm return | FileCheck %s --check-prefix=RETURN
// RETURN-DAG: rank 0: MPI_ERR_BASE, twice; own block freed: 0; heap intact
// RETURN-DAG: rank 1: MPI_ERR_BASE, twice; own block freed: 0; heap intact
// RUN: not %synergy-run -np 2 %t/free_mem.wasm 2>&1 | FileCheck %s --check-prefix=FATAL
// FATAL: synergy-run: rank {{[01]}}: MPI_Free_mem: address {{[0-9]+}} was not allocated by MPI_Alloc_mem (MPI_ERR_BASE)
// FATAL-NOT: heap intact
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1 && strcmp(argv[1], "return") == 0)
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char* heap = malloc(64);
  memset(heap, 'h', 64);
  int* block;
  MPI_Alloc_mem(16, MPI_INFO_NULL, &block);
  int on_stack = 0;
  int first = MPI_Free_mem(heap);
  int second = MPI_Free_mem(&on_stack);
  int own = MPI_Free_mem(block);
  // A block given back once is no longer MPI's either.
  int again = MPI_Free_mem(block);
  int intact = 1;
  for (int i = 0; i < 64; ++i) intact &= heap[i] == 'h';
  char* reuse = malloc(64);
  intact &= reuse != heap;
  int first_class, second_class;
  MPI_Error_class(first, &first_class);
  MPI_Error_class(second, &second_class);
  printf("rank %d: %s, twice; own block freed: %d; heap %s\n", rank,
         first_class == MPI_ERR_BASE && second_class == MPI_ERR_BASE && again == first
             ? "MPI_ERR_BASE"
             : "wrong class",
         own, intact ? "intact" : "damaged");
  free(reuse);
  free(heap);
  MPI_Finalize();
  return 0;
}

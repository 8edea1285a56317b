// omp_free, omp_realloc and omp_alloc are given guest values the runtime must
// not trust: a pointer malloc made (its header is not omp_alloc's), a block
// freed twice, an allocator handle nobody created, and a destroyed one. Each
// ends the program with a clear trap and status 134 before anything is
// freed or allocated, so the line after the call is never printed.
// RUN: %synergy-cc -O1 -fopenmp %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm foreign; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: sh -c '%synergy-run %t.wasm twice; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: sh -c '%synergy-run %t.wasm realloc; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=REALLOC
// RUN: sh -c '%synergy-run %t.wasm unknown; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: sh -c '%synergy-run %t.wasm destroyed; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DESTROYED
// FOREIGN: trap: omp_free: not an omp_alloc pointer
// FOREIGN-NOT: freed
// FOREIGN: exit=134
// TWICE: first free done
// TWICE-NEXT: trap: omp_free: not an omp_alloc pointer
// TWICE-NOT: freed
// TWICE: exit=134
// REALLOC: trap: omp_realloc: not an omp_alloc pointer
// REALLOC-NOT: reallocated
// REALLOC: exit=134
// UNKNOWN: trap: omp_alloc: 77 is not an allocator
// UNKNOWN-NOT: allocated
// UNKNOWN: exit=134
// DESTROYED: trap: omp_alloc: 1024 is not an allocator
// DESTROYED-NOT: allocated
// DESTROYED: exit=134
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "foreign")) {
    char *block = malloc(64);
    omp_free(block, omp_default_mem_alloc);
    puts("freed");
  } else if (!strcmp(what, "twice")) {
    void *block = omp_alloc(64, omp_default_mem_alloc);
    omp_free(block, omp_default_mem_alloc);
    puts("first free done");
    fflush(stdout);
    omp_free(block, omp_default_mem_alloc);
    puts("freed");
  } else if (!strcmp(what, "realloc")) {
    char *block = malloc(64);
    omp_realloc(block, 128, omp_default_mem_alloc, omp_default_mem_alloc);
    puts("reallocated");
  } else if (!strcmp(what, "unknown")) {
    omp_alloc(64, (omp_allocator_handle_t)77);
    puts("allocated");
  } else if (!strcmp(what, "destroyed")) {
    omp_allocator_handle_t made = omp_init_allocator(omp_default_mem_space, 0, NULL);
    omp_destroy_allocator(made);
    omp_alloc(64, made);
    puts("allocated");
  }
  return 0;
}

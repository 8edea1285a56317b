// --max-memory caps linear memory: malloc of more than the limit returns
// NULL, as when a module's own maximum is reached, and the program goes on;
// below the limit it succeeds. A module whose initial memory is already
// larger is refused before it runs, alone or as MPI ranks (the limit is per
// rank), with a clear error and status 2.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run --max-memory 16MiB %t.wasm 1048576 33554432 1048576 | FileCheck %s --check-prefix=CAPPED
// CAPPED: malloc(1048576): ok
// CAPPED-NEXT: malloc(33554432): NULL
// CAPPED-NEXT: malloc(1048576): ok
// RUN: %synergy-run %t.wasm 1048576 33554432 1048576 | FileCheck %s --check-prefix=FREE
// FREE: malloc(1048576): ok
// FREE-NEXT: malloc(33554432): ok
// FREE-NEXT: malloc(1048576): ok
// RUN: %synergy-run --max-memory 64M %t.wasm 33554432 | FileCheck %s --check-prefix=ROOM
// ROOM: malloc(33554432): ok
//
// RUN: %synergy-cc -O2 %s -Wl,--initial-memory=33554432 -o %t.big.wasm
// RUN: sh -c '%synergy-run --max-memory 16M %t.big.wasm 1; echo "exit=$?"' > %t.refused 2>&1
// RUN: FileCheck %s --check-prefix=REFUSED --implicit-check-not=malloc < %t.refused
// RUN: sh -c '%synergy-run -np 2 --max-memory 16M %t.big.wasm 1; echo "exit=$?"' > %t.ranks 2>&1
// RUN: FileCheck %s --check-prefix=REFUSED --implicit-check-not=malloc < %t.ranks
// REFUSED: synergy-run: error: {{.*}}big.wasm: instantiation trapped: the module's initial memory of 33554432 bytes exceeds --max-memory (16777216 bytes)
// REFUSED-NEXT: exit=2
// RUN: %synergy-run --max-memory 32M %t.big.wasm 1 | FileCheck %s --check-prefix=FITS
// FITS: malloc(1): ok
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Kept, so that the compiler cannot drop an allocation it sees unused.
char* volatile kept[8];

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    size_t bytes = strtoul(argv[i], 0, 10);
    char* block = malloc(bytes);
    printf("malloc(%zu): %s\n", bytes, block ? "ok" : "NULL");
    if (block) memset(block, i, bytes);
    kept[i] = block;
    free(block);
  }
  return 0;
}

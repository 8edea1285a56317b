// Guest code is compiled without loop unrolling, which would hide adjacency
// from the AOT compiler's vectorizer, and with saturating float-to-int
// conversions, which need no range-check branch or trap, and with bulk
// memory, so that memcpy/memset become memory.copy/memory.fill rather than
// calls into libc's wasm loops; a user's -funroll-loops,
// -mno-nontrapping-fptoint or -mno-bulk-memory comes later on the command
// line and wins.
// RUN: %synergy-cc -### -O2 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: "-fno-unroll-loops"
// DEFAULT-SAME: "-mnontrapping-fptoint"
// DEFAULT-SAME: "-mbulk-memory"
// DEFAULT-SAME: "-O2"
// RUN: %synergy-cc -### -O2 -funroll-loops -mno-nontrapping-fptoint -mno-bulk-memory -c %s -o %t.o 2>&1 \
// RUN:   | FileCheck %s --check-prefix=USER
// USER: "-fno-unroll-loops"
// USER-SAME: "-mnontrapping-fptoint"
// USER-SAME: "-mbulk-memory"
// USER-SAME: "-funroll-loops"
// USER-SAME: "-mno-nontrapping-fptoint"
// USER-SAME: "-mno-bulk-memory"
int main(void) { return 0; }

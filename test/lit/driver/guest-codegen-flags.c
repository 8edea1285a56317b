// Guest code is compiled without loop unrolling, which would hide adjacency
// from the AOT compiler's vectorizer; a user's -funroll-loops comes later on
// the command line and wins.
// RUN: %synergy-cc -### -O2 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: "-fno-unroll-loops"
// DEFAULT-SAME: "-O2"
// RUN: %synergy-cc -### -O2 -funroll-loops -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=USER
// USER: "-fno-unroll-loops"
// USER-SAME: "-funroll-loops"
int main(void) { return 0; }

// A call to an MPI function the runtime does not serve fails at link time
// with a message naming the function and the source that calls it, and no
// module is written. Served MPI functions still link, and other undefined
// symbols keep the linker's own message.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc %s -o %t/served.wasm
// RUN: %wasm-dis %t/served.wasm | FileCheck %s --check-prefix=SERVED
// SERVED: (import "env" "MPI_Barrier"
//
// RUN: not %synergy-cc -DUNSERVED %s -o %t/unserved.wasm 2>&1 | FileCheck %s --check-prefix=UNSERVED
// UNSERVED: synergy-cc: error: {{.*}}unserved-mpi-call.c: MPI_Not_served is not supported by the Synergy runtime
// UNSERVED: synergy-cc: error: {{.*}}unserved-mpi-call.c: PMPI_Not_served is not supported by the Synergy runtime
// UNSERVED-NOT: undefined symbol: MPI_Not_served
// RUN: test ! -e %t/unserved.wasm
//
// Split compile and link: the object is named as given.
// RUN: %synergy-cc -DUNSERVED -c %s -o %t/unserved.o
// RUN: not %synergy-cc %t/unserved.o -o %t/split.wasm 2>&1 | FileCheck %s --check-prefix=SPLIT
// SPLIT: synergy-cc: error: {{.*}}unserved.o: MPI_Not_served is not supported by the Synergy runtime
// RUN: test ! -e %t/split.wasm
//
// RUN: not %synergy-cc -DOTHER %s -o %t/other.wasm 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: {{.*}}: undefined symbol: not_defined_anywhere
// OTHER-NOT: not supported
#include <mpi.h>

#ifdef UNSERVED
int MPI_Not_served(MPI_Comm comm);
int PMPI_Not_served(MPI_Comm comm);
#endif
#ifdef OTHER
int not_defined_anywhere(void);
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
#ifdef UNSERVED
  MPI_Not_served(MPI_COMM_WORLD);
  PMPI_Not_served(MPI_COMM_WORLD);
#endif
#ifdef OTHER
  not_defined_anywhere();
#endif
  MPI_Finalize();
  return 0;
}

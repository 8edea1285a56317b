// MPI_File_open and MPI_File_delete go through the same grants as every
// other guest file access: `..` out of a grant, an absolute path outside
// every grant and a symlink that leads out of one are refused (with
// MPI_ERR_ACCESS or MPI_ERR_NO_SUCH_FILE and a message naming the file), and
// nothing outside the grant is created, written or deleted. Under
// MPI_ERRORS_ARE_FATAL the refusal ends the job with one clear line. Both
// resolvers run: openat2(RESOLVE_BENEATH) and the component walk.
// RUN: rm -rf %t && mkdir -p %t/grant %t/outside
// RUN: echo secret > %t/outside/secret
// RUN: ln -s ../outside %t/grant/link
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run -np 2 --dir %t/grant %t.wasm %t/grant %t/outside | FileCheck %s
// RUN: env SYNERGY_WASI_NO_OPENAT2=1 %synergy-run -np 2 --dir %t/grant %t.wasm %t/grant %t/outside \
// RUN:   | FileCheck %s
// RUN: ls -A %t/outside | FileCheck %s --check-prefix=OUTSIDE --implicit-check-not=created
// RUN: cat %t/outside/secret | FileCheck %s --check-prefix=SECRET
// RUN: not %synergy-run -np 2 --dir %t/grant %t.wasm %t/grant %t/outside fatal 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FATAL
// RUN: ls -A %t/outside | FileCheck %s --check-prefix=OUTSIDE --implicit-check-not=created
// RUN: ls -A %t/grant | FileCheck %s --check-prefix=GRANT --implicit-check-not=created

// CHECK-COUNT-12: refused: yes
// CHECK: inside the grant: MPI_SUCCESS
// CHECK-NOT: refused: no
// OUTSIDE: secret
// SECRET: secret
// FATAL: synergy-run: rank {{[01]}}: MPI_File_open: cannot open '{{.*}}/grant/../outside/created'{{.*}}(MPI_ERR_{{ACCESS|NO_SUCH_FILE}})
// GRANT: link
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void attempt(int rank, const char* what, int result) {
  int cls;
  MPI_Error_class(result, &cls);
  char text[MPI_MAX_ERROR_STRING];
  int length;
  MPI_Error_string(result, text, &length);
  if (rank == 0)
    printf("%s: refused: %s (%s)\n", what,
           cls == MPI_ERR_ACCESS || cls == MPI_ERR_NO_SUCH_FILE ? "yes" : "no", text);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* grant = argv[1];
  const char* outside = argv[2];
  if (argc > 3) MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
  char dotdot[512], absolute[512], viaLink[512];
  const char* names[] = {"created", "secret"};
  for (int n = 0; n < 2; ++n) {
    snprintf(dotdot, sizeof dotdot, "%s/../outside/%s", grant, names[n]);
    snprintf(absolute, sizeof absolute, "%s/%s", outside, names[n]);
    snprintf(viaLink, sizeof viaLink, "%s/link/%s", grant, names[n]);
    const char* paths[] = {dotdot, absolute, viaLink};
    for (int p = 0; p < 3; ++p) {
      MPI_File fh = MPI_FILE_NULL;
      int result = MPI_File_open(MPI_COMM_WORLD, paths[p], MPI_MODE_CREATE | MPI_MODE_RDWR,
                                 MPI_INFO_NULL, &fh);
      if (result == MPI_SUCCESS) {
        MPI_File_write_at(fh, 0, "pwned", 5, MPI_CHAR, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
      }
      attempt(rank, "open", result);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) attempt(rank, "delete", MPI_File_delete(paths[p], MPI_INFO_NULL));
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  char inside[512];
  snprintf(inside, sizeof inside, "%s/inside", grant);
  MPI_File fh;
  int result = MPI_File_open(MPI_COMM_WORLD, inside,
                             MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                             MPI_INFO_NULL, &fh);
  if (rank == 0) printf("inside the grant: %s\n", result == MPI_SUCCESS ? "MPI_SUCCESS" : "failed");
  if (result == MPI_SUCCESS) MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}

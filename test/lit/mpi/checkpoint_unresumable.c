// A job holding state a checkpoint file does not: with argument "file" each
// rank keeps a file open across a barrier after deleting it (the job runs
// with --dir /data; an open file that still has its name is checkpointed,
// see checkpoint_open_files.c),
// with "comm" a duplicated communicator, with "errhandler" MPI_ERRORS_RETURN
// on MPI_COMM_WORLD. The checkpoint is written, but
// `--resume` must refuse it with a clear error, exit non-zero, run nothing
// (no "after" line) and leave the output file as the killed run left it.
// RUN: rm -rf %t && mkdir -p %t/data %t/ckfile %t/ckcomm
// RUN: %synergy-cc -O2 %s -o %t/prog.wasm
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=1 not --crash %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/ckfile --dir %t/data:/data %t/prog.wasm file > %t/file.out
// RUN: ls %t/ckfile | FileCheck --check-prefix=WRITTEN %s
// WRITTEN: checkpoint.syck
// RUN: not %synergy-run --resume %t/ckfile >> %t/file.out 2> %t/file.err
// RUN: FileCheck --check-prefix=FILE %s < %t/file.err
// FILE: synergy-run: error: cannot resume from {{.*}}ckfile/checkpoint.syck: rank {{[01]}}: file descriptor {{[0-9]+}} names a deleted file (such descriptors are not checkpointed)
// RUN: sort %t/file.out | FileCheck --check-prefix=BEFORE %s
// BEFORE: rank 0 before
// BEFORE-NEXT: rank 1 before
// BEFORE-NOT: after
//
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=1 not --crash %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/ckcomm %t/prog.wasm comm > %t/comm.out
// RUN: not %synergy-run --resume %t/ckcomm >> %t/comm.out 2> %t/comm.err
// RUN: FileCheck --check-prefix=COMM %s < %t/comm.err
// COMM: synergy-run: error: cannot resume from {{.*}}ckcomm/checkpoint.syck: rank {{[01]}}: communicator 3 is live (MPI objects made by the program are not checkpointed)
// RUN: sort %t/comm.out | FileCheck --check-prefix=BEFORE %s
//
// RUN: mkdir %t/ckerr
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=1 not --crash %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/ckerr %t/prog.wasm errhandler > %t/err.out
// RUN: not %synergy-run --resume %t/ckerr >> %t/err.out 2> %t/err.err
// RUN: FileCheck --check-prefix=ERRHANDLER %s < %t/err.err
// ERRHANDLER: synergy-run: error: cannot resume from {{.*}}ckerr/checkpoint.syck: rank {{[01]}}: an error handler was set on a predefined communicator (MPI objects made by the program are not checkpointed)
// RUN: sort %t/err.out | FileCheck --check-prefix=BEFORE %s
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  FILE* file = NULL;
  MPI_Comm dup = MPI_COMM_NULL;
  if (argc > 1 && strcmp(argv[1], "file") == 0) {
    char path[64];
    snprintf(path, sizeof path, "/data/rank%d.txt", rank);
    file = fopen(path, "w");
    if (!file || remove(path) != 0) return 1;
  } else if (argc > 1 && strcmp(argv[1], "comm") == 0) {
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  } else if (argc > 1 && strcmp(argv[1], "errhandler") == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  printf("rank %d before\n", rank);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d after\n", rank);
  if (file) fclose(file);
  if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}

// A job holding state a checkpoint file does not: with argument "file" each
// rank keeps a file open across a barrier after deleting it (the job runs
// with --dir /data; an open file that still has its name is checkpointed,
// see checkpoint_open_files.c),
// with "graph" a communicator with a graph topology, with "request" an
// inactive persistent receive, with "buffer" an attached send buffer
// (communicators without one, and error
// handlers, are checkpointed: see checkpoint_mpi_objects.c). The
// checkpoint is written, but
// `--resume` must refuse it with a clear error, exit non-zero, run nothing
// (no "after" line) and leave the output file as the killed run left it.
// RUN: rm -rf %t && mkdir -p %t/data %t/ckfile %t/ckgraph
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
// RUN:   --checkpoint-dir %t/ckgraph %t/prog.wasm graph > %t/graph.out
// RUN: not %synergy-run --resume %t/ckgraph >> %t/graph.out 2> %t/graph.err
// RUN: FileCheck --check-prefix=GRAPH %s < %t/graph.err
// GRAPH: synergy-run: error: cannot resume from {{.*}}ckgraph/checkpoint.syck: rank {{[01]}}: communicator 3 has a graph topology (such MPI objects are not checkpointed)
// RUN: sort %t/graph.out | FileCheck --check-prefix=BEFORE %s
//
// RUN: mkdir %t/ckrequest
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=1 not --crash %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/ckrequest %t/prog.wasm request > %t/request.out
// RUN: not %synergy-run --resume %t/ckrequest >> %t/request.out 2> %t/request.err
// RUN: FileCheck --check-prefix=REQUEST %s < %t/request.err
// REQUEST: synergy-run: error: cannot resume from {{.*}}ckrequest/checkpoint.syck: rank {{[01]}}: request 2 is live (such MPI objects are not checkpointed)
// RUN: sort %t/request.out | FileCheck --check-prefix=BEFORE %s
//
// RUN: mkdir %t/ckbuffer
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=1 not --crash %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/ckbuffer %t/prog.wasm buffer > %t/buffer.out
// RUN: not %synergy-run --resume %t/ckbuffer >> %t/buffer.out 2> %t/buffer.err
// RUN: FileCheck --check-prefix=BUFFER %s < %t/buffer.err
// BUFFER: synergy-run: error: cannot resume from {{.*}}ckbuffer/checkpoint.syck: rank {{[01]}}: a buffer from MPI_Buffer_attach is attached (such MPI objects are not checkpointed)
// RUN: sort %t/buffer.out | FileCheck --check-prefix=BEFORE %s
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  FILE* file = NULL;
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  int received = 0;
  if (argc > 1 && strcmp(argv[1], "file") == 0) {
    char path[64];
    snprintf(path, sizeof path, "/data/rank%d.txt", rank);
    file = fopen(path, "w");
    if (!file || remove(path) != 0) return 1;
  } else if (argc > 1 && strcmp(argv[1], "graph") == 0) {
    int peer = 1 - rank;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &peer, MPI_UNWEIGHTED, 1, &peer,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  } else if (argc > 1 && strcmp(argv[1], "request") == 0) {
    MPI_Recv_init(&received, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &request);
  } else if (argc > 1 && strcmp(argv[1], "buffer") == 0) {
    static char buffer[1024 + MPI_BSEND_OVERHEAD];
    MPI_Buffer_attach(buffer, sizeof buffer);
  }
  printf("rank %d before\n", rank);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d after\n", rank);
  if (file) fclose(file);
  if (graph != MPI_COMM_NULL) MPI_Comm_free(&graph);
  if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  MPI_Finalize();
  return 0;
}

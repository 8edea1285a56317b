// A job with --dir and --env, killed with SIGKILL right after its second
// checkpoint and resumed with --resume (which takes no --dir or --env of its
// own): the resumed job must get exactly the recorded grant and variable.
// The program first asks for its environment and first opens a file under
// the grant after that checkpoint, so only re-applied ones can satisfy it;
// its output and exit status must equal OpenMPI's (the grant is seen under
// its host name, so the native build reads the same file).
// RUN: rm -rf %t && mkdir -p %t/data && echo 17 > %t/data/in.txt
// RUN: env GREETING=hello %mpi-diff --resume-after 2 --run-option=--dir \
// RUN:   --run-option=%t/data::ro --run-option=--env --run-option=GREETING=hello \
// RUN:   --arg=%t/data %s %t/diff 2
//
// The grant stays read-only after the resume: creating a file fails with
// EROFS and leaves nothing on the host.
// RUN: %synergy-cc -O2 %s -o %t/prog.wasm
// RUN: mkdir %t/ckro
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=2 not --crash %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/ckro --dir %t/data:/data:ro --env GREETING=hi \
// RUN:   %t/prog.wasm /data write > %t/ro.out
// RUN: %synergy-run --resume %t/ckro >> %t/ro.out
// RUN: sort %t/ro.out | FileCheck --check-prefix=READONLY %s
// READONLY: rank 0 greeting hi value 17 write refused (Read-only file system)
// READONLY: rank 1 greeting hi value 17 write refused (Read-only file system)
// RUN: not ls %t/data/rank0.out
//
// A grant whose host directory is gone, or is no longer a directory, is
// refused with one line and status 2 before anything runs: no phase after
// the checkpoint is printed.
// RUN: mkdir -p %t/gone %t/ckgone && echo 17 > %t/gone/in.txt
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=1 not --crash %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/ckgone --dir %t/gone:/data %t/prog.wasm /data > %t/gone.out
// RUN: cp -r %t/ckgone %t/cknotdir
// RUN: rm -rf %t/gone
// RUN: not %synergy-run --resume %t/ckgone >> %t/gone.out 2> %t/gone.err
// RUN: FileCheck --check-prefix=GONE %s < %t/gone.err
// GONE: synergy-run: error: cannot resume from {{.*}}ckgone/checkpoint.syck: the --dir grant {{.*}}/gone (seen as /data) no longer exists: No such file or directory
// RUN: sort %t/gone.out | FileCheck --check-prefix=NOTHING %s
// NOTHING: rank 0 phase 0
// NOTHING-NOT: phase 1
// RUN: echo file > %t/gone
// RUN: not %synergy-run --resume %t/cknotdir >> %t/gone.out 2> %t/notdir.err
// RUN: FileCheck --check-prefix=NOTDIR %s < %t/notdir.err
// NOTDIR: synergy-run: error: cannot resume from {{.*}}cknotdir/checkpoint.syck: the --dir grant {{.*}}/gone (seen as /data) is no longer a directory
// RUN: sort %t/gone.out | FileCheck --check-prefix=NOTHING %s
//
// A checkpoint of format version 2, which held no grants, is refused, and
// so is one of version 3, which held no open files, one of version 4,
// which held no MPI objects, one of version 5, one of version 6 and one of
// version 7.
// RUN: cp -r %t/ckro %t/ckold
// RUN: printf '\002' | dd of=%t/ckold/checkpoint.syck bs=1 seek=8 conv=notrunc 2> /dev/null
// RUN: not %synergy-run --resume %t/ckold > %t/old.out 2> %t/old.err
// RUN: FileCheck --check-prefix=OLD %s < %t/old.err
// OLD: synergy-run: error: {{.*}}ckold/checkpoint.syck: checkpoint format version 2 is not version 8, the one this synergy-run reads (checkpoint again with this build)
// RUN: not grep . %t/old.out
// RUN: printf '\003' | dd of=%t/ckold/checkpoint.syck bs=1 seek=8 conv=notrunc 2> /dev/null
// RUN: not %synergy-run --resume %t/ckold > %t/old3.out 2> %t/old3.err
// RUN: FileCheck --check-prefix=OLD3 %s < %t/old3.err
// OLD3: synergy-run: error: {{.*}}ckold/checkpoint.syck: checkpoint format version 3 is not version 8, the one this synergy-run reads (checkpoint again with this build)
// RUN: not grep . %t/old3.out
// RUN: printf '\004' | dd of=%t/ckold/checkpoint.syck bs=1 seek=8 conv=notrunc 2> /dev/null
// RUN: not %synergy-run --resume %t/ckold > %t/old4.out 2> %t/old4.err
// RUN: FileCheck --check-prefix=OLD4 %s < %t/old4.err
// OLD4: synergy-run: error: {{.*}}ckold/checkpoint.syck: checkpoint format version 4 is not version 8, the one this synergy-run reads (checkpoint again with this build)
// RUN: not grep . %t/old4.out
// A checkpoint of version 5 held no output counts of a job spread over hosts.
// RUN: printf '\005' | dd of=%t/ckold/checkpoint.syck bs=1 seek=8 conv=notrunc 2> /dev/null
// RUN: not %synergy-run --resume %t/ckold > %t/old5.out 2> %t/old5.err
// RUN: FileCheck --check-prefix=OLD5 %s < %t/old5.err
// OLD5: synergy-run: error: {{.*}}ckold/checkpoint.syck: checkpoint format version 5 is not version 8, the one this synergy-run reads (checkpoint again with this build)
// RUN: not grep . %t/old5.out
// A checkpoint of version 6 had a SHA-256 where the CRC-32C is now.
// RUN: printf '\006' | dd of=%t/ckold/checkpoint.syck bs=1 seek=8 conv=notrunc 2> /dev/null
// RUN: not %synergy-run --resume %t/ckold > %t/old6.out 2> %t/old6.err
// RUN: FileCheck --check-prefix=OLD6 %s < %t/old6.err
// OLD6: synergy-run: error: {{.*}}ckold/checkpoint.syck: checkpoint format version 6 is not version 8, the one this synergy-run reads (checkpoint again with this build)
// RUN: not grep . %t/old6.out
// A checkpoint of version 7 held no counts of nonblocking collectives.
// RUN: printf '\007' | dd of=%t/ckold/checkpoint.syck bs=1 seek=8 conv=notrunc 2> /dev/null
// RUN: not %synergy-run --resume %t/ckold > %t/old7.out 2> %t/old7.err
// RUN: FileCheck --check-prefix=OLD7 %s < %t/old7.err
// OLD7: synergy-run: error: {{.*}}ckold/checkpoint.syck: checkpoint format version 7 is not version 8, the one this synergy-run reads (checkpoint again with this build)
// RUN: not grep . %t/old7.out
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2) return 1;
  for (int phase = 0; phase < 4; ++phase) {
    if (phase == 3) {
      const char* greeting = getenv("GREETING");
      char path[512];
      snprintf(path, sizeof path, "%s/in.txt", argv[1]);
      FILE* in = fopen(path, "r");
      int value = -1;
      if (!in || fscanf(in, "%d", &value) != 1) value = -1;
      if (in) fclose(in);
      printf("rank %d greeting %s value %d", rank, greeting ? greeting : "(none)", value);
      if (argc > 2 && strcmp(argv[2], "write") == 0) {
        snprintf(path, sizeof path, "%s/rank%d.out", argv[1], rank);
        FILE* out = fopen(path, "w");
        if (out) {
          fclose(out);
          printf(" write allowed");
        } else {
          printf(" write refused (%s)", strerror(errno));
        }
      }
      printf("\n");
    }
    printf("rank %d phase %d\n", rank, phase);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}

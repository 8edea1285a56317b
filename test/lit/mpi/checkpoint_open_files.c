// Files open across checkpoints: each rank reads an input file of a
// read-only grant line by line through stdio, appends a line a phase to its
// log through stdio, appends a byte a phase through a raw O_APPEND
// descriptor, and
// holds the read-only grant's directory open, through which it opens the
// input again at the end (openat).
// Killed with SIGKILL right after its second checkpoint and resumed, the
// job must reopen all three at the same descriptor numbers and offsets: its
// output (which ends with each rank's log, its raw file and the offsets)
// and exit status equal OpenMPI's. The grants are seen under their host
// names, so the native build opens the same files.
// RUN: rm -rf %t && mkdir -p %t/data/logs %t/ref
// RUN: printf 'alpha\nbravo\ncharlie\ndelta\necho\n' > %t/ref/in.txt
// RUN: %mpi-diff --resume-after 2 --run-option=--dir --run-option=%t/data \
// RUN:   --run-option=--dir --run-option=%t/ref::ro --arg=%t/data --arg=%t/ref %s %t/diff 2 3
//
// Bytes written after the checkpoint a job resumes from are taken back: a
// job resumed from checkpoint 2 that dies right after checkpoint 3 has
// written phase 2's lines and bytes; resuming the copy of checkpoint 2
// again cuts the files back to their length there, so nothing appears
// twice (the log would be overwritten in place anyway; the raw file
// appends, and only the cut keeps phase 2's byte from being there twice).
// RUN: %synergy-cc -O2 %s -o %t/prog.wasm
// RUN: %synergy-run -np 2 --dir %t/data --dir %t/ref::ro %t/prog.wasm %t/data %t/ref \
// RUN:   | sort > %t/plain.out
// RUN: mkdir %t/ck
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=2 not --crash %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/ck --dir %t/data --dir %t/ref::ro %t/prog.wasm %t/data %t/ref > %t/twice.out
// RUN: cp -r %t/ck %t/ck2
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=1 not --crash %synergy-run --resume %t/ck \
// RUN:   --checkpoint-every 0 >> %t/twice.out
// RUN: grep -c 'phase 2' %t/data/logs/rank0.log | FileCheck --check-prefix=WRITTEN %s
// WRITTEN: 1
// RUN: %synergy-run --resume %t/ck2 >> %t/twice.out
// RUN: sort %t/twice.out | diff %t/plain.out -
// RUN: FileCheck --check-prefix=LOG %s < %t/data/logs/rank1.log
// LOG: rank 1 phase 0 read alpha
// LOG-NEXT: rank 1 phase 1 read bravo
// LOG-NEXT: rank 1 phase 2 read charlie
// LOG-NEXT: rank 1 phase 3 read delta
// LOG-NEXT: rank 1 phase 4 read echo
// LOG-NOT: phase
// RUN: FileCheck --check-prefix=RAW %s < %t/twice.out
// RAW: rank 0 raw: abcde{{$}}
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { kPhases = 5 };

static void printFile(int rank, const char* what, const char* path) {
  FILE* file = fopen(path, "r");
  char line[256];
  if (!file) {
    printf("rank %d %s missing\n", rank, what);
    return;
  }
  while (fgets(line, sizeof line, file))
    printf("rank %d %s: %s%s", rank, what, line, strchr(line, '\n') ? "" : "\n");
  fclose(file);
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) return 1;
  char logPath[512], rawPath[512], inPath[512];
  snprintf(logPath, sizeof logPath, "%s/logs/rank%d.log", argv[1], rank);
  snprintf(rawPath, sizeof rawPath, "%s/rank%d.raw", argv[1], rank);
  snprintf(inPath, sizeof inPath, "%s/in.txt", argv[2]);
  FILE* in = fopen(inPath, "r");
  FILE* log = fopen(logPath, "w");
  int raw = open(rawPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  int ref = open(argv[2], O_RDONLY | O_DIRECTORY);
  if (!in || !log || raw < 0 || ref < 0) {
    printf("rank %d cannot open its files\n", rank);
    return 1;
  }
  for (int phase = 0; phase < kPhases; ++phase) {
    char word[64] = "";
    if (!fgets(word, sizeof word, in)) strcpy(word, "(end)\n");
    fprintf(log, "rank %d phase %d read %s", rank, phase, word);
    fflush(log);
    char byte = (char)('a' + phase + rank);
    if (write(raw, &byte, 1) != 1) printf("rank %d write failed\n", rank);
    printf("rank %d phase %d\n", rank, phase);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("rank %d offsets in %ld raw %ld\n", rank, ftell(in), (long)lseek(raw, 0, SEEK_CUR));
  fclose(in);
  fclose(log);
  close(raw);
  char first[6] = "";
  int again = openat(ref, "in.txt", O_RDONLY);
  if (again < 0 || read(again, first, 5) != 5) strcpy(first, "none");
  printf("rank %d through the directory: %s\n", rank, first);
  if (again >= 0) close(again);
  close(ref);
  MPI_Barrier(MPI_COMM_WORLD);
  printFile(rank, "log", logPath);
  printFile(rank, "raw", rawPath);
  MPI_Finalize();
  return 0;
}

// A rank that rewrites most of its memory between two checkpoints gains
// nothing from the tracking of its written pages, whose faults then cost
// more than they save: its tracker is dropped and its next sections are
// built whole, and tracking looks again after each rest
// (checkpoint/WriteTrackingRest.h). Here every phase rewrites the whole of
// a 2 MiB array, nearly all of each rank's section, with a checkpoint at
// every barrier. Killed after the checkpoints around the rests (a whole build
// while resting, the patch after a look, the next rest's), the job resumes
// to an undisturbed run's output, as OpenMPI prints it; with the
// statistics, some sections were built whole while their tracking rested
// (where the kernel can track written pages at all: otherwise every
// section is built whole, none rebuilt and none counted as rested).
// RUN: %mpi-diff --resume-after 3 %s %t 2
// RUN: %mpi-diff --resume-after 4 %s %t 2
// RUN: %mpi-diff --resume-after 7 %s %t 3
// RUN: rm -rf %t/stats && mkdir -p %t/stats
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/stats %t/granule.wasm 2>&1 >/dev/null | FileCheck %s
// CHECK: synergy-run: checkpoint sections: {{(0 of [0-9]+ rebuilt .*, 0 built whole|[1-9][0-9]* of [0-9]+ rebuilt .*, [1-9][0-9]* built whole)}} while their write tracking rested
#include <mpi.h>
#include <stdio.h>

#define PAGES 512
static unsigned char big[PAGES][4096];

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int phase = 0; phase < 12; ++phase) {
    unsigned total = 0;
    for (int page = 0; page < PAGES; ++page)
      for (int i = 0; i < 4096; i += 64) {
        big[page][i] = (unsigned char)(phase * 131 + page + i / 64 + rank + 1);
        total = total * 31 + big[page][i];
      }
    MPI_Barrier(MPI_COMM_WORLD);
    // What the last phase left must survive a checkpoint and a resume.
    unsigned check = 0;
    for (int page = 0; page < PAGES; ++page)
      for (int i = 0; i < 4096; i += 64) check = check * 31 + big[page][i];
    printf("rank %d phase %d: %u %u\n", rank, phase, total, check);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}

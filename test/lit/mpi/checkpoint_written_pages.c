// A checkpoint rebuilds each rank's section over its last one from the
// pages the rank wrote since (the kernel's list: snapshot/WrittenPages.h),
// and builds it whole where that cannot be: the first time, after the
// memory grew, or where a written page turned zero or non-zero. The phases
// here do all of these: a few pages of a large array written, a page
// cleared, one filled that was zero, the heap grown. Killed after its
// second, fifth and ninth checkpoint, the job resumes from the file to an
// undisturbed run's output, as OpenMPI prints it; and with the statistics,
// some sections were rebuilt from written pages (where the kernel can list
// them: otherwise every section is built whole and the counts say 0).
// RUN: %mpi-diff --resume-after 2 %s %t 2 3
// RUN: %mpi-diff --resume-after 5 %s %t 2
// RUN: %mpi-diff --resume-after 9 %s %t 3
// RUN: rm -rf %t/stats && mkdir -p %t/stats
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 2 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t/stats %t/granule.wasm 2>&1 >/dev/null | FileCheck %s
// CHECK: synergy-run: checkpoint sections: {{[0-9]+}} of {{[1-9][0-9]*}} rebuilt from the pages written since the last
// The writes then compare and checksum only the chunks that changed since
// the file they recycle (DurableReplace.h, PieceChunks); the rest is
// skipped (here the large array's pages that no phase writes).
// CHECK: synergy-run: checkpoint writes: {{[1-9][0-9]*}} bytes neither compared nor checksummed
// A crash in the middle of a write (every section in the recycled file,
// but not its head, which holds the checksum, nor the rename): the
// checkpoint before it resumes to an undisturbed run's output, and the
// torn file, were it put in its place, is refused.
// RUN: env SYNERGY_CHECKPOINT_TEAR_NEXT=1 %mpi-diff --resume-after 4 %s %t 2
// RUN: rm -rf %t/torn %t/torn-alone && mkdir -p %t/torn %t/torn-alone
// RUN: env SYNERGY_CHECKPOINT_KILL_AFTER=4 SYNERGY_CHECKPOINT_TEAR_NEXT=1 not --crash \
// RUN:   %synergy-run -np 2 --checkpoint-every 0 --checkpoint-dir %t/torn %t/granule.wasm \
// RUN:   2>&1 >/dev/null | FileCheck --check-prefix=TORN %s
// TORN: synergy-run: test: checkpoint {{[0-9]+}}'s write torn before its head
// RUN: cp %t/torn/checkpoint.syck.spare %t/torn-alone/checkpoint.syck
// RUN: not %synergy-run --resume %t/torn-alone 2>&1 | FileCheck --check-prefix=REFUSED %s
// REFUSED: {{checksum does not match|truncated or has trailing bytes}}
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGES 256
static unsigned char big[PAGES][4096];

static unsigned sum(const unsigned char* bytes, size_t n) {
  unsigned total = 0;
  for (size_t i = 0; i < n; ++i) total = total * 31 + bytes[i];
  return total;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int page = 0; page < PAGES; page += 2) memset(big[page], rank + 1, sizeof big[page]);
  unsigned char* grown = NULL;
  size_t grownBytes = 0;
  for (int phase = 0; phase < 12; ++phase) {
    // A few pages of data change in every phase.
    for (int k = 0; k < 3; ++k) big[(phase * 7 + k * 20) % PAGES][phase + k] += (unsigned char)(phase + 1);
    // A page turns zero, in rank 0 only: its section shrinks, and rank 1's
    // moves in the file while the rank rebuilds it from written pages
    // (what the incremental write knew of it lies elsewhere in the spare).
    if (phase == 3 && rank == 0) memset(big[10], 0, sizeof big[10]);
    if (phase == 5) big[11][100] = 7;                      // a zero page is written
    if (phase == 7) {                                      // the heap grows
      grownBytes = 3 << 20;
      grown = calloc(grownBytes, 1);
      for (size_t i = 0; i < grownBytes; i += 4096) grown[i] = (unsigned char)(i / 4096 + rank);
    }
    if (grown && phase > 7) grown[phase * 4096] ^= 0x5a;
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d phase %d: %u %u\n", rank, phase, sum(&big[0][0], sizeof big),
           grown ? sum(grown, grownBytes) : 0u);
    fflush(stdout);
  }
  free(grown);
  MPI_Finalize();
  return 0;
}

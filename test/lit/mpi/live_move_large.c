// A live move of a rank whose memory holds large runs (issue 22): the
// departing rank's largest run has its pages moved into the section rather
// than copied, and at the arrival the large runs' pages are moved into the
// fresh instance's memory and their bytes shifted down to their offsets
// (checkpoint/RankMove.h). Each rank fills three buffers (one of 5 MiB and
// 3 bytes, one of 5 MiB with zero pages inside it, so that its memory has
// several runs of odd lengths, and a small one) with bytes of its own, and
// after the control point the move is taken at checks every byte and that
// the zero pages stayed zero: a run shifted by a byte, a page lost or one
// left over from the section shows as a count of bad bytes. OpenMPI's
// output is the same with no move.
// RUN: %mpi-diff --live-move 2 %s %t/moved 2 3
// RUN: %mpi-diff --live-move 3 %s %t/moved3 2
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char expected(size_t i, int rank, int which) {
  uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ULL + (uint64_t)rank * 131 + (uint64_t)which;
  return (unsigned char)((x >> 29) | 1);  // never zero
}

// Whether byte i of the buffer with zero stretches is in one: 64 KiB every
// 1.5 MiB, at an odd place, so that the runs between them are large enough
// to have their pages moved too, at offsets in the section that are not on
// a page (the largest run's is).
static int in_zero_stretch(size_t i) { return (i + 12345) % (1536 << 10) < (64 << 10); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t sizes[3] = {(5u << 20) + 3, 5u << 20, 4000};
  unsigned char* buffers[3];
  for (int b = 0; b < 3; ++b) {
    buffers[b] = malloc(sizes[b]);
    if (!buffers[b]) MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < sizes[b]; ++i)
      buffers[b][i] = b == 1 && in_zero_stretch(i) ? 0 : expected(i, rank, b);
  }
  long bad = 0, total = 0;
  for (int phase = 0; phase < 4; ++phase) {
    // A barrier control point; the move is taken at one of them.
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < 3; ++b)
      for (size_t i = 0; i < sizes[b]; ++i) {
        unsigned char want = b == 1 && in_zero_stretch(i) ? 0 : expected(i, rank, b);
        bad += buffers[b][i] != want;
      }
  }
  MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d: %ld bad bytes\n", rank, bad);
  if (rank == 0) printf("all ranks: %ld bad bytes\n", total);
  for (int b = 0; b < 3; ++b) free(buffers[b]);
  MPI_Finalize();
  return 0;
}

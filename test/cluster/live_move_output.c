// For cluster_test.py live-move-output: every rank's output across the
// barrier control point where one rank moves live to another part (issue
// 22's live move). Each rank prints many lines right before the move and
// right after it, and, at the move, a line it began before the control
// point and ends after it: the moving rank's unfinished line must travel
// with it (the source's forwarding holds it back, the target's ends it),
// and its lines printed on the source must come out before those it prints
// on the target. The other ranks' unfinished lines stay where they are.
// Control points (collectives on MPI_COMM_WORLD) are the three barriers.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 40; ++i) printf("rank %d line %d before the first barrier\n", rank, i);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 200; ++i) printf("rank %d line %d right before the move\n", rank, i);
  // Flushed out of the guest's buffer, so that the line's first half lies
  // in the launcher's forwarding when the rank departs.
  printf("rank %d began this line before the move", rank);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  printf(" and ended it after the move\n");
  for (int i = 0; i < 200; ++i) printf("rank %d line %d right after the move\n", rank, i);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d done\n", rank);
  MPI_Finalize();
  return 0;
}

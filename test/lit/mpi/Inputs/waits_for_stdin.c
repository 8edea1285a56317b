// For bind-to.test: every rank says it runs, then waits until the test
// closes its stdin, so that the test can look at the ranks' threads.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("rank %d running\n", rank);
  fflush(stdout);
  char line[16];
  while (fgets(line, sizeof line, stdin)) {
  }
  MPI_Finalize();
  return 0;
}

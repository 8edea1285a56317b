// A cluster job for cluster_test.py: every rank takes part in an allreduce,
// rank 0 reports the result, its arguments and environment on stdout (with
// enough lines to span many output frames) and one line on stderr. Rank 0's
// exit status is argv[2] when given, so the test can check it travels back;
// the other ranks exit 0, so which rank the runtime reports is fixed.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int value = (rank + 1) * 10, sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("ranks %d sum %d\n", size, sum);
    for (int i = 1; i < argc; ++i) printf("arg %d '%s'\n", i, argv[i]);
    const char* greeting = getenv("GREETING");
    printf("GREETING=%s\n", greeting ? greeting : "(unset)");
    int lines = argc > 1 ? atoi(argv[1]) : 0;
    for (int i = 0; i < lines; ++i) printf("line %06d of the report\n", i);
    fprintf(stderr, "rank 0 done\n");
  }
  MPI_Finalize();
  return rank == 0 && argc > 2 ? atoi(argv[2]) : 0;
}

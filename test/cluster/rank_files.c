// Files through --dir grants, for cluster_test.py's dir-grants case. Every
// rank writes out/rank-R.txt in its working directory (granted with
// `--dir .`), then after a barrier reads every rank's file back, reads the
// read-only grant /ref, and tries to write where its grants do not reach:
// /ref (read-only), ../ (above the working directory) and argv[1] (an
// absolute host path outside every grant). Run on one host and spread over
// three, the sorted output must be the same.
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void try_write(int rank, const char* path) {
  FILE* file = fopen(path, "w");
  if (file) {
    fputs("escaped\n", file);
    fclose(file);
    printf("rank %d wrote %s\n", rank, path);
  } else {
    printf("rank %d cannot write %s: %s\n", rank, path, strerror(errno));
  }
}

static void print_first_line(int rank, const char* path) {
  char line[128] = "";
  FILE* file = fopen(path, "r");
  if (!file) {
    printf("rank %d cannot read %s: %s\n", rank, path, strerror(errno));
    return;
  }
  if (!fgets(line, sizeof line, file)) strcpy(line, "(empty)\n");
  fclose(file);
  printf("rank %d read %s: %s", rank, path, line);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  printf("rank %d cwd %s\n", rank, getcwd(path, sizeof path) ? path : strerror(errno));
  snprintf(path, sizeof path, "out/rank-%d.txt", rank);
  FILE* file = fopen(path, "w");
  if (!file) {
    printf("rank %d cannot write %s: %s\n", rank, path, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  fprintf(file, "written by rank %d of %d\n", rank, size);
  fclose(file);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int other = 0; other < size; ++other) {
    snprintf(path, sizeof path, "out/rank-%d.txt", other);
    print_first_line(rank, path);
  }
  print_first_line(rank, "/ref/input.txt");
  try_write(rank, "/ref/new.txt");
  try_write(rank, "../escaped.txt");
  if (argc > 1) try_write(rank, argv[1]);
  MPI_Finalize();
  return 0;
}

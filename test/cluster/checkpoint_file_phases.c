// For the cluster case checkpoint-dir-grants: checkpoint_phases.c with a
// file each rank holds open in a --dir grant across the whole job. Every
// phase ends in a barrier control point and appends a line to the rank's
// log through stdio (flushed, so the file's length and offset move at each
// phase); at the end each rank prints its log's line count and hash. A
// host lost mid-job and the job restarted from its last checkpoint must
// leave the log and the output exactly as an undisturbed run's: the descriptor reopened below its
// grant at the checkpoint's offset, and what the killed run wrote after the
// checkpoint cut off. argv[1]: the granted directory, argv[2]: the phases,
// argv[3]: the work of each.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) return 1;
  int phases = atoi(argv[2]);
  long work = atol(argv[3]);
  char path[512];
  snprintf(path, sizeof path, "%s/rank%d.log", argv[1], rank);
  FILE* log = fopen(path, "w");
  if (!log) {
    printf("rank %d cannot open %s\n", rank, path);
    return 1;
  }
  unsigned long long state = 0x9e3779b97f4a7c15ULL * (unsigned long long)(rank + 1);
  for (int phase = 0; phase < phases; ++phase) {
    for (long i = 0; i < work; ++i) state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    unsigned long long sum = 0;
    MPI_Allreduce(&state, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    fprintf(log, "rank %d phase %d sum %llu\n", rank, phase, sum);
    fflush(log);
    printf("rank %d of %d phase %d\n", rank, size, phase);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  fclose(log);
  // One line for the whole log (the test compares the files themselves):
  // mpirun cuts long runs of lines from several ranks into each other.
  log = fopen(path, "r");
  unsigned long long hash = 14695981039346656037ULL;
  int lines = 0;
  for (int c; log && (c = getc(log)) != EOF;) {
    hash = (hash ^ (unsigned char)c) * 1099511628211ULL;
    lines += c == '\n';
  }
  printf("rank %d log lines %d fnv %llu\n", rank, lines, hash);
  if (log) fclose(log);
  MPI_Finalize();
  return 0;
}

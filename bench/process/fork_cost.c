// The cost of fork() (bench/process/fork_bench.py): fills argv[1] MiB of
// heap with non-zero bytes, then times argv[2] rounds of fork, a child that
// reads one byte of every page and _exits with it, and waitpid. Prints the
// median round in microseconds and a checksum of the children's statuses,
// which must equal the native build's.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double nowMicroseconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compareDoubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  size_t bytes = (size_t)atoi(argv[1]) << 20;
  int rounds = atoi(argv[2]);
  if (rounds < 1 || rounds > 10000) return 2;
  unsigned char* heap = malloc(bytes ? bytes : 1);
  if (!heap) return 3;
  for (size_t i = 0; i < bytes; ++i) heap[i] = (unsigned char)(i * 131 + 7) | 1;
  double* times = malloc(sizeof(double) * (size_t)rounds);
  unsigned checksum = 0;
  for (int round = 0; round < rounds; ++round) {
    double start = nowMicroseconds();
    pid_t child = fork();
    if (child == 0) {
      unsigned char sum = 0;
      for (size_t i = 0; i < bytes; i += 4096) sum += heap[i];
      _exit(sum);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return 4;
    times[round] = nowMicroseconds() - start;
    checksum = checksum * 31 + (unsigned)WEXITSTATUS(status);
  }
  qsort(times, (size_t)rounds, sizeof(double), compareDoubles);
  printf("median_us %.1f checksum %u\n", times[rounds / 2], checksum);
  return 0;
}

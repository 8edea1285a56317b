// With --dsm, team threads run on write-protected copy-on-write replicas; a
// file read straight into a replica page (a system call writing it, which
// fails with EFAULT instead of faulting) must still land, and the merged
// result must equal the shared-memory run.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && seq 1 1000 > %t.dir/input.txt
// RUN: %synergy-cc -O2 -fopenmp %s -o %t.wasm
// RUN: env OMP_NUM_THREADS=4 %synergy-run --dir %t.dir:/data %t.wasm | FileCheck %s
// RUN: env OMP_NUM_THREADS=4 %synergy-run --dsm --dir %t.dir:/data %t.wasm | FileCheck %s
// CHECK: threads 4 bytes 15572 sum 649460
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

static char buffers[8][8192];

int main(void) {
  long sum = 0, bytes = 0;
  int threads = 0;
#pragma omp parallel reduction(+ : sum, bytes)
  {
    char* buffer = buffers[omp_get_thread_num()];
    int fd = open("/data/input.txt", O_RDONLY);
    int n = fd < 0 ? 0 : (int)read(fd, buffer, sizeof buffers[0]);
    if (fd >= 0) close(fd);
    bytes += n;
    for (int i = 0; i < n; ++i) sum += buffer[i];
#pragma omp master
    threads = omp_get_num_threads();
  }
  printf("threads %d bytes %ld sum %ld\n", threads, bytes, sum);
  return 0;
}

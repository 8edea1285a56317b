// C++ with OpenMP through synergy-c++: libc++ containers filled and reduced
// by a parallel loop, compared with the native g++ -fopenmp build at three
// threads, in shared and --dsm mode.
// RUN: g++ -O2 -fopenmp %s -o %t.native
// RUN: env OMP_NUM_THREADS=3 %t.native > %t.expected
// RUN: %synergy-c++ -O2 -fopenmp %s -o %t.wasm
// RUN: env OMP_NUM_THREADS=3 %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: env OMP_NUM_THREADS=3 %synergy-run --dsm %t.wasm > %t.dsm
// RUN: diff %t.expected %t.dsm
// RUN: FileCheck %s < %t.actual
// CHECK: sum 999000 squares 332833500 threads 3
#include <omp.h>

#include <cstdio>
#include <map>
#include <vector>

int main() {
  std::vector<long> values(1000);
#pragma omp parallel for schedule(dynamic, 7)
  for (int i = 0; i < 1000; ++i) values[i] = 2L * i;
  long sum = 0, squares = 0;
#pragma omp parallel for reduction(+ : sum, squares)
  for (int i = 0; i < 1000; ++i) {
    sum += values[i];
    squares += long(i) * i;
  }
  std::map<int, int> teams;
#pragma omp parallel
  {
#pragma omp critical
    teams[omp_get_num_threads()] += 1;
  }
  std::printf("sum %ld squares %ld threads %d\n", sum, squares, teams.begin()->second);
  return 0;
}

// Differential: C++ exceptions in thread granules (-fopenmp), where every
// thread has its own propagating and caught exceptions (the EH runtime's
// state is thread-local, as is __THREW__):
//  - each iteration of a parallel loop throws and catches in its own thread,
//    through a frame with a destructor;
//  - the usual way out of a parallel region: the first exception is kept as
//    a std::exception_ptr and rethrown on the initial thread afterwards.
// With and without --dsm, against g++/libgomp.
// RUN: g++ -O2 -fopenmp %s -o %t.native
// RUN: env OMP_NUM_THREADS=4 %t.native > %t.expected
// RUN: %synergy-c++ -O2 -fopenmp %s -o %t.wasm
// RUN: env OMP_NUM_THREADS=4 %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: env OMP_NUM_THREADS=4 %synergy-run --dsm %t.wasm > %t.dsm
// RUN: diff %t.expected %t.dsm
// RUN: FileCheck %s < %t.actual
// CHECK: sum 3000000 caught 1498500 released 3000
// CHECK-NEXT: rethrown after the region: stop at 1234
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

static long released = 0;

struct Release {
  ~Release() {
#pragma omp atomic
    ++released;
  }
};

__attribute__((noinline)) static int work(int i) {
  Release guard;
  if (i % 3 == 0) throw std::runtime_error(std::to_string(i));
  return i;
}

int main() {
  long sum = 0, caught = 0;
#pragma omp parallel for reduction(+ : sum, caught)
  for (int i = 0; i < 3000; ++i) {
    try {
      sum += work(i);
    } catch (const std::runtime_error& e) {
      caught += std::stol(e.what());
    }
  }
  printf("sum %ld caught %ld released %ld\n", sum, caught, released);

  std::exception_ptr first;
#pragma omp parallel for
  for (int i = 0; i < 2000; ++i) {
    try {
      if (i == 1234) throw std::out_of_range("stop at " + std::to_string(i));
    } catch (...) {
#pragma omp critical
      if (!first) first = std::current_exception();
    }
  }
  try {
    if (first) std::rethrow_exception(first);
  } catch (const std::out_of_range& e) {
    printf("rethrown after the region: %s\n", e.what());
  }
  return 0;
}

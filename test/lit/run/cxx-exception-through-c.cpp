// Differential: a C++ exception thrown by a callback passes through a C
// function that calls setjmp (built by synergy-cc, whose setjmp lowering is
// what makes its calls invokes) to the C++ handler, as natively; it is not
// taken for a normal return. A longjmp in the same C function still works.
// RUN: %host-clang -O2 -c %S/Inputs/setjmp-callback.c -o %t.native-c.o
// RUN: %host-clang++ -O2 %s %t.native-c.o -o %t.native && %t.native > %t.expected
// RUN: %synergy-cc -O2 -c %S/Inputs/setjmp-callback.c -o %t.c.o
// RUN: %synergy-c++ -O2 %s %t.c.o -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// CHECK: C: callback returned
// CHECK-NEXT: returned 0
// CHECK-NEXT: caught 7 in C++
// CHECK-NEXT: C: longjmp arrived
// CHECK-NEXT: returned 1
#include <cstdio>

extern "C" int call_guarded(void (*callback)(int), int value);
extern "C" void jump_back(void);

int main() {
  std::printf("returned %d\n", call_guarded([](int) {}, 0));
  try {
    call_guarded([](int value) { throw value; }, 7);
    std::puts("wrong: no exception");
  } catch (int value) {
    std::printf("caught %d in C++\n", value);
  }
  std::printf("returned %d\n", call_guarded([](int) { jump_back(); }, 0));
  return 0;
}

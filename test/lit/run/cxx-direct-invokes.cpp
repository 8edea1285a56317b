// Differential: the direct-invokes pass (passes/DirectInvokes.cpp) turns an
// invoke whose callee cannot throw into a plain call and leaves every other
// one alone, so exceptions behave as natively (same stdout, same status)
// when they are thrown
//  - through a function pointer, and through a virtual call, from another
//    translation unit (the pointers' other targets never throw);
//  - from a callee in another translation unit, through frames with
//    destructors, mixed with calls to a never-throwing one that became
//    direct (the wasm calls addOne directly);
//  - again by a handler (`throw;`), and into nested try blocks;
//  - from a destructor while another exception unwinds: std::terminate,
//    status 134 and libc++abi's message.
// RUN: %host-clang++ -O2 -I%S/Inputs %s %S/Inputs/invoke-callees.cpp -o %t.native
// RUN: %synergy-c++ -O2 -I%S/Inputs %s %S/Inputs/invoke-callees.cpp -o %t.wasm
// RUN: %t.native > %t.expected
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// RUN: sh -c '%t.native terminate; echo "exit=$?"' > %t.native.terminate 2>/dev/null
// RUN: sh -c '%synergy-run %t.wasm terminate; echo "exit=$?"' > %t.wasm.terminate 2> %t.err.terminate
// RUN: diff %t.native.terminate %t.wasm.terminate
// RUN: FileCheck --check-prefix=TERMINATE %s < %t.wasm.terminate
// RUN: FileCheck --check-prefix=MESSAGE %s < %t.err.terminate
// RUN: %wasm-dis %t.wasm | FileCheck --check-prefix=WASM %s
// CHECK: direct: 55 (10 guards)
// CHECK-NEXT: pointer 0: 8
// CHECK-NEXT: pointer 1: caught negative -3
// CHECK-NEXT: virtual 0: 16
// CHECK-NEXT: virtual 1: caught broken shape
// CHECK-NEXT: ~Guard 2
// CHECK-NEXT: ~Guard 1
// CHECK-NEXT: other unit: caught negative -7
// CHECK-NEXT: rethrown: negative -1
// CHECK-NEXT: nested: inner int 9, outer negative -2
// TERMINATE: ~Loud 1
// TERMINATE-NEXT: ~Loud -1
// TERMINATE-NEXT: exit=134
// MESSAGE: libc++abi: terminating due to uncaught exception of type int{{$}}
// WASM: (call $addOne\28int\29
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "invoke-callees.h"

struct Guard {
  int id;
  int* count;
  ~Guard() {
    if (count) ++*count;
    else std::printf("~Guard %d\n", id);
  }
};

__attribute__((noinline)) static int throughGuards(int x) {
  Guard outer{1, nullptr};
  Guard inner{2, nullptr};
  return failIfNegative(x);
}

static void terminateFromDestructor() {
  Loud thrower{-1};
  Loud quiet{1};
  throw std::runtime_error("unwinding");
}

int main(int argc, char** argv) {
  if (argc == 2 && !std::strcmp(argv[1], "terminate")) {
    try {
      terminateFromDestructor();
    } catch (...) {
      std::puts("wrong: caught");
    }
    return 0;
  }
  int sum = 0, guards = 0;
  for (int i = 0; i < 5; ++i) {
    Guard g{i, &guards};
    sum += addOne(i) + addOne(i * 2);
    Guard h{i, &guards};
    sum += addOne(i);
  }
  std::printf("direct: %d (%d guards)\n", sum, guards);

  for (int which = 0; which < 2; ++which) {
    try {
      Guard g{which, &guards};
      std::printf("pointer %d: %d\n", which, pickCallback(which)(which == 0 ? 7 : -3));
    } catch (const std::invalid_argument& e) {
      std::printf("pointer %d: caught %s\n", which, e.what());
    }
  }
  for (int kind = 0; kind < 2; ++kind) {
    Shape* shape = makeShape(kind);
    try {
      std::printf("virtual %d: %d\n", kind, shape->area());
    } catch (const std::runtime_error& e) {
      std::printf("virtual %d: caught %s\n", kind, e.what());
    }
    delete shape;
  }
  try {
    throughGuards(-7);
  } catch (const std::exception& e) {
    std::printf("other unit: caught %s\n", e.what());
  }
  try {
    try {
      failIfNegative(-1);
    } catch (const std::invalid_argument&) {
      throw;
    }
  } catch (const std::logic_error& e) {
    std::printf("rethrown: %s\n", e.what());
  }
  try {
    try {
      throw 9;
    } catch (int inner) {
      try {
        failIfNegative(-2);
      } catch (const std::runtime_error&) {
        std::puts("wrong: runtime_error");
      }
      std::printf("wrong: %d\n", inner);
    }
  } catch (const std::invalid_argument& e) {
    std::printf("nested: inner int 9, outer %s\n", e.what());
  }
  return 0;
}

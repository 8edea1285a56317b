// Differential: C++ exceptions in a granule (synergy-c++ enables them by
// default, as clang++ does) behave as natively, shape by shape:
//  - catch by exact type, by public base (single and multiple inheritance,
//    where the caught reference points into the middle of the object), by
//    pointer (to a base too), by value (a copy), catch (...);
//  - clause order, nested try, rethrow (`throw;`) and a new throw from a
//    handler, an exception crossing frames with and without handlers;
//  - destructors of locals run during unwinding, innermost first, and the
//    thrown object is destroyed exactly once;
//  - std::exception_ptr, std::current_exception, std::rethrow_exception,
//    std::uncaught_exceptions, std::make_exception_ptr;
//  - exceptions thrown by libc++ templates (std::vector::at) and by the ABI
//    (dynamic_cast to a reference, operator new after the new_handler);
//  - a throw from a qsort comparator through libc's frames;
//  - setjmp/longjmp and try/catch in one function, both ways;
//  - 20000 throws out of frames with 4 KiB locals: the 8 MiB stack survives
//    only if every throw restores the stack pointer.
// RUN: %host-clang++ -O2 -Wno-exceptions %s -o %t.native && %t.native > %t.expected
// RUN: %synergy-c++ -O2 -Wno-exceptions %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.actual
// RUN: diff %t.expected %t.actual
// RUN: FileCheck %s < %t.actual
// RUN: %synergy-c++ -O0 -Wno-exceptions %s -o %t.O0.wasm
// RUN: %synergy-run %t.O0.wasm > %t.O0.actual
// RUN: diff %t.expected %t.O0.actual
// CHECK-LABEL: == matching
// CHECK-NEXT: int 7
// CHECK-NEXT: Derived via Base: base 1 derived 2
// CHECK-NEXT: Both via Right: right 20
// CHECK-NEXT: Both via Left: left 10
// CHECK-NEXT: pointer Base* -> base 1
// CHECK-NEXT: by value: copy of 5
// CHECK-NEXT: catch-all for a double
// CHECK-NEXT: first matching clause: Base
// CHECK-NEXT: clause 14 of 14
// CHECK-LABEL: == propagation
// CHECK-NEXT: ~Guard inner
// CHECK-NEXT: ~Guard middle
// CHECK-NEXT: ~Guard outer
// CHECK-NEXT: caught runtime_error: deep 3
// CHECK-NEXT: rethrown: again
// CHECK-NEXT: handler threw: second (first still: first)
// CHECK-NEXT: nested: inner int 1, outer char c
// CHECK-NEXT: Counted alive after handlers: 0
// CHECK-LABEL: == library
// CHECK-NEXT: uncaught during unwind: 1
// CHECK-NEXT: exception_ptr rethrown: stored
// CHECK-NEXT: make_exception_ptr: 99
// CHECK-NEXT: vector::at: out_of_range
// CHECK-NEXT: dynamic_cast: bad_cast
// CHECK-NEXT: operator new: new_handler called 1 time(s), then bad_alloc
// CHECK-NEXT: qsort comparator threw 13 after
// CHECK-LABEL: == setjmp
// CHECK-NEXT: longjmp past a try: 5
// CHECK-NEXT: throw in a setjmp function: caught 6
// CHECK-NEXT: stack: 20000 throws, sum 199990000
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

struct Base {
  virtual ~Base() {}
  int base = 1;
};
struct Derived : Base {
  int derived = 2;
};
struct Left {
  virtual ~Left() {}
  int left = 10;
};
struct Right {
  virtual ~Right() {}
  int right = 20;
};
struct Both : Left, Right {};

struct Copyable {
  int value;
  explicit Copyable(int v) : value(v) {}
  Copyable(const Copyable& other) : value(other.value) {}
};

static int countedAlive = 0;
struct Counted {
  Counted() { ++countedAlive; }
  Counted(const Counted&) { ++countedAlive; }
  ~Counted() { --countedAlive; }
};

struct Guard {
  const char* name;
  explicit Guard(const char* n) : name(n) {}
  ~Guard() { printf("~Guard %s\n", name); }
};

template <int N>
struct Tag {};

template <typename T>
__attribute__((noinline)) void raise(const T& value) {
  throw value;
}

static void matching() {
  puts("== matching");
  try { raise(7); } catch (long) { puts("wrong: long"); } catch (int v) { printf("int %d\n", v); }
  try {
    raise(Derived());
  } catch (Base& b) {
    printf("Derived via Base: base %d derived %d\n", b.base, dynamic_cast<Derived&>(b).derived);
  }
  try { raise(Both()); } catch (Right& r) { printf("Both via Right: right %d\n", r.right); }
  try { raise(Both()); } catch (Left& l) { printf("Both via Left: left %d\n", l.left); }
  static Derived global;
  try {
    raise(&global);
  } catch (Base* b) {
    printf("pointer Base* -> base %d\n", b->base);
  }
  try {
    raise(Copyable(5));
  } catch (Copyable c) {
    printf("by value: copy of %d\n", c.value);
  }
  try { raise(2.5); } catch (int) { puts("wrong: int"); } catch (...) { puts("catch-all for a double"); }
  try {
    raise(Derived());
  } catch (Base&) {
    puts("first matching clause: Base");
  } catch (Derived&) {
    puts("wrong: Derived");
  }
  // One landing pad with 14 typed clauses.
  try {
    raise(Tag<14>());
  } catch (Tag<1>) { puts("wrong: 1");
  } catch (Tag<2>) { puts("wrong: 2");
  } catch (Tag<3>) { puts("wrong: 3");
  } catch (Tag<4>) { puts("wrong: 4");
  } catch (Tag<5>) { puts("wrong: 5");
  } catch (Tag<6>) { puts("wrong: 6");
  } catch (Tag<7>) { puts("wrong: 7");
  } catch (Tag<8>) { puts("wrong: 8");
  } catch (Tag<9>) { puts("wrong: 9");
  } catch (Tag<10>) { puts("wrong: 10");
  } catch (Tag<11>) { puts("wrong: 11");
  } catch (Tag<12>) { puts("wrong: 12");
  } catch (Tag<13>) { puts("wrong: 13");
  } catch (Tag<14>) { puts("clause 14 of 14");
  }
}

__attribute__((noinline)) static void deep(int level) {
  Guard guard(level == 3 ? "inner" : level == 2 ? "middle" : "outer");
  if (level == 3) throw std::runtime_error("deep " + std::to_string(level));
  deep(level + 1);
}

static void propagation() {
  puts("== propagation");
  try { deep(1); } catch (const std::runtime_error& e) { printf("caught runtime_error: %s\n", e.what()); }
  try {
    try {
      raise(std::string("again"));
    } catch (std::string&) {
      throw;
    }
  } catch (const std::string& s) {
    printf("rethrown: %s\n", s.c_str());
  }
  try {
    try {
      raise(std::string("first"));
    } catch (std::string& first) {
      try {
        raise(std::string("second"));
      } catch (std::string& second) {
        printf("handler threw: %s (first still: %s)\n", second.c_str(), first.c_str());
      }
    }
  } catch (...) {
    puts("wrong: escaped");
  }
  try {
    try {
      raise(1);
    } catch (int inner) {
      try { raise('c'); } catch (long) { puts("wrong: long"); }
      printf("wrong: %d\n", inner);
    }
  } catch (char outer) {
    printf("nested: inner int 1, outer char %c\n", outer);
  }
  for (int i = 0; i < 3; ++i) {
    try { raise(Counted()); } catch (Counted) {}
    try {
      try { raise(Counted()); } catch (Counted&) { throw; }
    } catch (...) {}
  }
  printf("Counted alive after handlers: %d\n", countedAlive);
}

struct ReportsUncaught {
  ~ReportsUncaught() { printf("uncaught during unwind: %d\n", std::uncaught_exceptions()); }
};

static void library() {
  puts("== library");
  try {
    ReportsUncaught reporter;
    raise(0);
  } catch (int) {}
  std::exception_ptr stored;
  try { raise(std::runtime_error("stored")); } catch (...) { stored = std::current_exception(); }
  try {
    std::rethrow_exception(stored);
  } catch (const std::exception& e) {
    printf("exception_ptr rethrown: %s\n", e.what());
  }
  try {
    std::rethrow_exception(std::make_exception_ptr(99));
  } catch (int v) {
    printf("make_exception_ptr: %d\n", v);
  }
  std::vector<int> numbers(3);
  try {
    numbers.at(numbers.size() + std::strlen(""));
  } catch (const std::out_of_range&) {
    puts("vector::at: out_of_range");
  }
  Base plain;
  Base& reference = plain;
  try {
    (void)dynamic_cast<Derived&>(reference);
  } catch (const std::bad_cast&) {
    puts("dynamic_cast: bad_cast");
  }
  static int handlerCalls = 0;
  std::set_new_handler([] {
    ++handlerCalls;
    std::set_new_handler(nullptr);
  });
  try {
    volatile size_t huge = static_cast<size_t>(-1) - 4096;
    char* block = new char[huge];
    printf("wrong: got %p\n", static_cast<void*>(block));
  } catch (const std::bad_alloc&) {
    printf("operator new: new_handler called %d time(s), then bad_alloc\n", handlerCalls);
  }
  int values[8] = {5, 3, 13, 1, 8, 2, 21, 0};
  try {
    qsort(values, 8, sizeof(int), [](const void* a, const void* b) -> int {
      int x = *static_cast<const int*>(a), y = *static_cast<const int*>(b);
      if (x == 13 || y == 13) throw 13;
      return (x > y) - (x < y);
    });
    puts("wrong: sorted");
  } catch (int v) {
    printf("qsort comparator threw %d after\n", v);
  }
}

static std::jmp_buf jumpTarget;

__attribute__((noinline)) static void jumpOut(int value) {
  std::longjmp(jumpTarget, value);
}

__attribute__((noinline)) static int throwHeavy(int i) {
  volatile char locals[4096];
  std::memset(const_cast<char*>(locals), i, sizeof locals);
  if (i >= 0) throw i;
  return locals[0];
}

static void setjmpAndExceptions() {
  puts("== setjmp");
  int got = setjmp(jumpTarget);
  if (got == 0) {
    try {
      jumpOut(5);
    } catch (...) {
      puts("wrong: longjmp caught");
    }
  } else {
    printf("longjmp past a try: %d\n", got);
  }
  volatile int caught = 0;
  if (setjmp(jumpTarget) == 0) {
    try {
      raise(6);
    } catch (int v) {
      caught = v;
    }
  }
  printf("throw in a setjmp function: caught %d\n", caught);
  long sum = 0;
  for (int i = 0; i < 20000; ++i) {
    try { throwHeavy(i); } catch (int v) { sum += v; }
  }
  printf("stack: 20000 throws, sum %ld\n", sum);
}

int main() {
  matching();
  propagation();
  library();
  countedAlive = 0;
  setjmpAndExceptions();
  return 0;
}

// Differential: where a C++ program must end in std::terminate, a granule
// ends as the native build does: the same stdout, then abort (status 134).
// Its message on stderr is libc++abi's (the C++ runtime granules use).
//  - uncaught: a std::exception (the message names the type and what()),
//    and an int, thrown with no handler anywhere;
//  - through: an exception no handler matches, after cleanup frames ran;
//  - noexcept: an exception leaving a noexcept function;
//  - rethrow: `throw;` with no exception being handled;
//  - handler: a std::set_terminate handler runs instead of the message.
// RUN: %host-clang++ -O2 %s -o %t.native
// RUN: %synergy-c++ -O2 %s -o %t.wasm
// RUN: sh -c '%t.native uncaught-exception; echo "exit=$?"' > %t.native.uncaught-exception 2>/dev/null
// RUN: sh -c '%synergy-run %t.wasm uncaught-exception; echo "exit=$?"' > %t.wasm.uncaught-exception 2> %t.err.uncaught-exception
// RUN: diff %t.native.uncaught-exception %t.wasm.uncaught-exception
// RUN: FileCheck --check-prefix=EXCEPTION %s < %t.err.uncaught-exception
// RUN: sh -c '%t.native uncaught-int; echo "exit=$?"' > %t.native.uncaught-int 2>/dev/null
// RUN: sh -c '%synergy-run %t.wasm uncaught-int; echo "exit=$?"' > %t.wasm.uncaught-int 2> %t.err.uncaught-int
// RUN: diff %t.native.uncaught-int %t.wasm.uncaught-int
// RUN: FileCheck --check-prefix=INT %s < %t.err.uncaught-int
// RUN: sh -c '%t.native through; echo "exit=$?"' > %t.native.through 2>/dev/null
// RUN: sh -c '%synergy-run %t.wasm through; echo "exit=$?"' > %t.wasm.through 2> %t.err.through
// RUN: diff %t.native.through %t.wasm.through
// RUN: FileCheck --check-prefix=THROUGH %s < %t.err.through
// RUN: sh -c '%t.native noexcept; echo "exit=$?"' > %t.native.noexcept 2>/dev/null
// RUN: sh -c '%synergy-run %t.wasm noexcept; echo "exit=$?"' > %t.wasm.noexcept 2> %t.err.noexcept
// RUN: diff %t.native.noexcept %t.wasm.noexcept
// RUN: FileCheck --check-prefix=NOEXCEPT %s < %t.err.noexcept
// RUN: sh -c '%t.native rethrow; echo "exit=$?"' > %t.native.rethrow 2>/dev/null
// RUN: sh -c '%synergy-run %t.wasm rethrow; echo "exit=$?"' > %t.wasm.rethrow 2> %t.err.rethrow
// RUN: diff %t.native.rethrow %t.wasm.rethrow
// RUN: FileCheck --check-prefix=RETHROW %s < %t.err.rethrow
// RUN: sh -c '%t.native handler; echo "exit=$?"' > %t.native.handler 2>/dev/null
// RUN: sh -c '%synergy-run %t.wasm handler; echo "exit=$?"' > %t.wasm.handler 2> %t.err.handler
// RUN: diff %t.native.handler %t.wasm.handler
// RUN: FileCheck --check-prefix=HANDLER %s < %t.err.handler
// RUN: FileCheck --check-prefix=STDOUT %s < %t.wasm.through
// EXCEPTION: libc++abi: terminating due to uncaught exception of type std::runtime_error: no handler
// INT: libc++abi: terminating due to uncaught exception of type int{{$}}
// THROUGH: libc++abi: terminating due to uncaught exception of type Unmatched{{$}}
// NOEXCEPT: libc++abi: terminating due to uncaught exception of type std::logic_error: from noexcept
// RETHROW: libc++abi: terminating{{$}}
// HANDLER: custom terminate handler
// HANDLER-NOT: libc++abi
// STDOUT: before
// STDOUT-NEXT: exit=134
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>

struct Unmatched {
  int code = 3;
};

__attribute__((noinline)) static void throwUnmatched() { throw Unmatched(); }

__attribute__((noinline)) static void middle() {
  try {
    throwUnmatched();
  } catch (int) {
    puts("wrong: int");
  }
}

__attribute__((noinline)) static void throwLogicError() { throw std::logic_error("from noexcept"); }

__attribute__((noinline)) static void promisesNothrow() noexcept { throwLogicError(); }

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* mode = argv[1];
  puts("before");
  fflush(stdout);
  if (!strcmp(mode, "uncaught-exception")) throw std::runtime_error("no handler");
  if (!strcmp(mode, "uncaught-int")) throw 5;
  if (!strcmp(mode, "through")) {
    try {
      middle();
    } catch (double) {
      puts("wrong: double");
    }
  }
  if (!strcmp(mode, "noexcept")) promisesNothrow();
  if (!strcmp(mode, "rethrow")) throw;
  if (!strcmp(mode, "handler")) {
    std::set_terminate([] {
      fputs("custom terminate handler\n", stderr);
      std::abort();
    });
    throw 1;
  }
  puts("after");
  return 0;
}

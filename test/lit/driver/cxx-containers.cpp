// synergy-c++ compiles and links C++ against libc++ for wasm32.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-c++ -O2 -std=c++20 %s -o %t/containers.wasm
// RUN: %wasm-dis %t/containers.wasm | FileCheck %s
// CHECK-DAG: (export "_start" (func
// CHECK-DAG: (export "memory" (memory
// CHECK-DAG: (func $__original_main
// CHECK-DAG: (func $operator\20new
//
// Separate compile and link through synergy-c++ also pulls in libc++.
// RUN: %synergy-c++ -c %s -o %t/containers.o
// RUN: %synergy-c++ %t/containers.o -o %t/linked.wasm
// RUN: %wasm-dis %t/linked.wasm | FileCheck %s
//
// Exceptions are on by default, as with clang++: the compile lowers them to
// invokes and the link puts the EH runtime before libc++ and libc++abi,
// whose Debian wasm32 builds have none. -fno-exceptions still wins, so a
// throw is then a compile-time error; synergy-cc keeps C++ sources without
// exceptions, as its links have no C++ runtime.
// RUN: %synergy-c++ -### -DTHROWS %s -o %t/throws.wasm 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN: "--target=wasm32-wasi" {{.*}}"-mllvm" "-enable-emscripten-cxx-exceptions" "-mllvm" "-enable-emscripten-sjlj" {{.*}}"-c"
// PLAN: "{{.*}}share/synergy/lib/libsynergy-cxxabi.a" "{{.*}}share/synergy/lib/libsynergy-posix.a"
// RUN: %synergy-c++ -### -DTHROWS %s -o %t/throws.wasm 2>&1 | FileCheck %s --check-prefix=ON
// ON-NOT: -fno-exceptions
// RUN: %synergy-c++ -DTHROWS %s -o %t/throws.wasm
// RUN: not %synergy-run %t/throws.wasm 2>&1 | FileCheck %s --check-prefix=UNCAUGHT
// UNCAUGHT: libc++abi: terminating due to uncaught exception of type int
// RUN: not %synergy-c++ -fno-exceptions -c -DTHROWS %s -o %t/throws.o 2>&1 | FileCheck %s --check-prefix=THROW
// RUN: not %synergy-cc -c -DTHROWS %s -o %t/throws.o 2>&1 | FileCheck %s --check-prefix=THROW
// THROW: error: cannot use 'throw' with exceptions disabled
//
// RUN: %synergy-run %t/containers.wasm | FileCheck %s --check-prefix=OUT
// OUT: cccc
// OUT-NEXT: ad=2
// OUT-NEXT: cccc=4
// OUT-NEXT: zebra=5
#include <cstdio>
#include <map>
#include <string>
#include <vector>

int main() {
#ifdef THROWS
  throw 1;
#endif
  std::vector<std::string> words = {"zebra", "ad", "cccc"};
  std::map<std::string, int> lengths;
  for (const std::string& w : words) lengths[w] = static_cast<int>(w.size());
  std::printf("%s\n", std::string(lengths.size() + 1, 'c').c_str());
  for (const auto& [word, length] : lengths) std::printf("%s=%d\n", word.c_str(), length);
  return 0;
}

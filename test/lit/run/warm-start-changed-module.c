// A warm start finds a module's compiled object by the file's identity
// (device, inode, size, modification and change times), recorded once the
// file has not changed for two seconds, instead of reading and hashing the
// module. A file changed afterwards never runs the old object: here the
// module is overwritten in place (same inode, same size) with another
// program and its modification time is set back, and only the change time,
// which nothing can set back, tells the two apart.
// RUN: rm -rf %t.cache %t.wasm && mkdir -p %t.cache
// RUN: %synergy-cc -O2 -DWORD='"one"' %s -o %t.one.wasm
// RUN: %synergy-cc -O2 -DWORD='"two"' %s -o %t.two.wasm
// RUN: cp %t.one.wasm %t.wasm
// RUN: sleep 2.2
// RUN: env SYNERGY_CACHE_DIR=%t.cache %synergy-run %t.wasm | FileCheck %s --check-prefix=ONE
// RUN: ls %t.cache/aot | grep -c -e '[.]source$' | FileCheck %s --check-prefix=RECORDED
// RUN: env SYNERGY_CACHE_DIR=%t.cache %synergy-run %t.wasm | FileCheck %s --check-prefix=ONE
// RUN: touch -r %t.wasm %t.times
// RUN: sh -c 'cat %t.two.wasm > %t.wasm'
// RUN: touch -r %t.times %t.wasm
// RUN: env SYNERGY_CACHE_DIR=%t.cache %synergy-run %t.wasm | FileCheck %s --check-prefix=TWO
// A record that does not parse only means the module is read again.
// RUN: sh -c 'for r in %t.cache/aot/*.source; do printf garbage > "$r"; done'
// RUN: sleep 2.2
// RUN: env SYNERGY_CACHE_DIR=%t.cache %synergy-run %t.wasm | FileCheck %s --check-prefix=TWO
// RUN: env SYNERGY_CACHE_DIR=%t.cache %synergy-run %t.wasm | FileCheck %s --check-prefix=TWO
// ONE: module one
// TWO: module two
// RECORDED: 1
#include <stdio.h>

int main(void) {
  printf("module %s\n", WORD);
  return 0;
}

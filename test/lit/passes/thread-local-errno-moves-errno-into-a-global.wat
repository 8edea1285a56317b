;; thread-local-errno turns every 4-byte load and store at errno's address
;; (the "errno" export synergy-cc adds to threaded links) into global.get and
;; global.set of a new mutable global, which each thread granule has its own
;; copy of, and drops the export. The constant may sit in the pointer or in
;; the offset. Neighbouring words, memory.fill over errno (the bss clear in
;; __wasm_init_memory) and non-constant addresses are left alone. A narrower
;; access to errno is an error; modules that run no threads are unchanged.
;;
;; RUN: wasm-as -g --enable-bulk-memory %s -o %t.wasm
;; RUN: %synergy-opt --pass=thread-local-errno %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s
;; RUN: sed -e 's/(i32.store offset=1028 (i32.const 0)/(i32.store8 offset=1025 (i32.const 0)/' %s > %t.narrow.wat
;; RUN: wasm-as -g --enable-bulk-memory %t.narrow.wat -o %t.narrow.wasm
;; RUN: not %synergy-opt --pass=thread-local-errno %t.narrow.wasm -o %t.bad.wasm 2>&1 \
;; RUN:   | FileCheck %s --check-prefix=NARROW
;; RUN: test ! -e %t.bad.wasm
;; RUN: sed -e 's/(import "env" "__kmpc_fork_call".*$//' -e 's/(call $fork .*$/(nop)/' %s > %t.single.wat
;; RUN: wasm-as -g --enable-bulk-memory %t.single.wat -o %t.single.wasm
;; RUN: %synergy-opt --pass=thread-local-errno %t.single.wasm -o %t.single.out.wasm
;; RUN: %wasm-dis %t.single.out.wasm | FileCheck %s --check-prefix=SINGLE

(module
  (import "env" "__kmpc_fork_call" (func $fork (param i32 i32 i32 i32)))
  (memory 1)
  (global $errno i32 (i32.const 1024))
  (export "errno" (global $errno))
  (func $set_errno (param $value i32)
    (i32.store (i32.const 1024) (local.get $value)))
  (func $get_errno (result i32)
    (i32.load offset=1024 (i32.const 0)))
  (func $neighbour
    (i32.store offset=1028 (i32.const 0) (i32.const 7)))
  (func $through_pointer (param $p i32) (result i32)
    (i32.load (local.get $p)))
  (func $clear_bss
    (memory.fill (i32.const 1024) (i32.const 0) (i32.const 16)))
  (func $_start (export "_start")
    (call $fork (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))
  )
)

;; CHECK-NOT:  (export "errno"
;; CHECK:      (global $errno.thread (mut i32) (i32.const 0))
;; CHECK-NOT:  (export "errno"
;; CHECK:      (func $set_errno
;; CHECK-NEXT:  (global.set $errno.thread
;; CHECK-NEXT:   (local.get $value)
;; CHECK:      (func $get_errno
;; CHECK-NEXT:  (global.get $errno.thread)
;; CHECK:      (func $neighbour
;; CHECK-NEXT:  (i32.store offset=1028
;; CHECK:      (func $through_pointer
;; CHECK-NEXT:  (i32.load
;; CHECK-NEXT:   (local.get $p)
;; CHECK:      (func $clear_bss
;; CHECK-NEXT:  (memory.fill
;; CHECK-NEXT:   (i32.const 1024)

;; NARROW: errno is accessed other than as one 4-byte int; it cannot be made per-thread

;; SINGLE-NOT: errno.thread
;; SINGLE:     (export "errno" (global $errno))
;; SINGLE-NOT: errno.thread

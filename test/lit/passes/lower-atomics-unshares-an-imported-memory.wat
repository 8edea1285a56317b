;; Threaded guests usually import their memory. Unsharing it must keep the
;; import (module, name and limits); only the shared flag goes.
;;
;; RUN: wasm-as -g --enable-threads %s -o %t.wasm
;; RUN: %synergy-opt --pass=lower-atomics %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s
;; RUN: wasm2c %t.out.wasm -o %t.c

(module
  (import "env" "memory" (memory $imported (shared 3 300)))
  (func $bump (export "bump") (param $p i32) (result i32)
    (i32.atomic.rmw.add (local.get $p) (i32.const 1)))
)

;; CHECK:     (import "env" "memory" (memory $imported 3 300))
;; CHECK:     (export "bump" (func $bump))
;; CHECK-NOT: shared

;; A module that never calls the OpenMP or pthreads runtime runs as one
;; granule: serialize-libc and export-thread-support leave it unchanged.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=serialize-libc --pass=export-thread-support %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s

(module
  (memory 1)
  (func $malloc (param $size i32) (result i32)
    (local.get $size))
  (func $_start (export "_start")
    (drop (call $malloc (i32.const 4))))
)

;; CHECK-NOT: libc_lock
;; CHECK-NOT: unlocked
;; CHECK-NOT: __synergy_
;; CHECK:     (func $malloc (param $size i32) (result i32)
;; CHECK-NEXT:  (local.get $size)

;; In a module that calls the thread runtime, serialize-libc moves each libc
;; entry point's body to "<name>.unlocked" and makes the function itself take
;; the runtime's libc lock around a call to it. The result goes through one of
;; the function's own locals; functions outside the list stay as they were.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=serialize-libc %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s

(module
  (import "env" "pthread_create" (func $pthread_create (param i32 i32 i32 i32) (result i32)))
  (memory 1)
  (func $malloc (param $size i32) (result i32)
    (i32.add (local.get $size) (i32.const 8)))
  (func $free (param $p i32)
    (drop (local.get $p)))
  (func $helper (param $x i32) (result i32)
    (local.get $x))
  (func $_start (export "_start")
    (drop (call $pthread_create (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
    (call $free (call $malloc (i32.const 4))))
)

;; CHECK:      (import "synergy" "libc_lock_acquire" (func $synergy.libc_lock_acquire))
;; CHECK:      (import "synergy" "libc_lock_release" (func $synergy.libc_lock_release))
;; CHECK:      (func $malloc (param $size i32) (result i32)
;; CHECK-NEXT:   (call $synergy.libc_lock_acquire)
;; CHECK-NEXT:   (local.set $size
;; CHECK-NEXT:    (call $malloc.unlocked
;; CHECK-NEXT:     (local.get $size)
;; CHECK:        (call $synergy.libc_lock_release)
;; CHECK-NEXT:   (local.get $size)
;; CHECK:      (func $free (param $p i32)
;; CHECK-NEXT:   (call $synergy.libc_lock_acquire)
;; CHECK-NEXT:   (call $free.unlocked
;; CHECK:        (call $synergy.libc_lock_release)
;; CHECK:      (func $helper (param $x i32) (result i32)
;; CHECK-NEXT:   (local.get $x)
;; CHECK-NEXT: )
;; CHECK:      (func $malloc.unlocked (param $0 i32) (result i32)
;; CHECK-NEXT:   (i32.add
;; CHECK:      (func $free.unlocked (param $0 i32)

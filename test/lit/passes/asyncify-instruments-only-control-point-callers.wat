;; Asyncify must instrument exactly the functions that can reach a
;; control-point import (directly or through calls), and leave the rest
;; byte-for-byte alone, so code without control points is not slowed down.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=asyncify-control-points %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s
;; RUN: wasm2c %t.out.wasm -o %t.c

(module
  (import "env" "MPI_Barrier" (func $MPI_Barrier (param i32) (result i32)))
  (import "env" "puts" (func $puts (param i32) (result i32)))
  (memory $0 1)
  (func $leaf (param $x i32) (result i32)
    (i32.mul (local.get $x) (local.get $x)))
  (func $calls_puts (result i32)
    (call $puts (i32.const 16)))
  (func $calls_barrier (result i32)
    (call $MPI_Barrier (i32.const 0)))
  (func $calls_caller (result i32)
    (i32.add (call $calls_barrier) (call $leaf (i32.const 3))))
  (func $_start (export "_start")
    (drop (call $calls_caller))
    (drop (call $calls_puts)))
)

;; The runtime drives unwinding through these exports and the two globals.
;; CHECK:      (global $[[STATE:global\$[0-9]+]] (mut i32) (i32.const 0))
;; CHECK-NEXT: (global $[[DATA:global\$[0-9]+]] (mut i32) (i32.const 0))
;; CHECK-DAG:  (export "asyncify_start_unwind"
;; CHECK-DAG:  (export "asyncify_stop_unwind"
;; CHECK-DAG:  (export "asyncify_start_rewind"
;; CHECK-DAG:  (export "asyncify_stop_rewind"
;; CHECK-DAG:  (export "asyncify_get_state"

;; CHECK-LABEL: (func $leaf (param $0 i32) (result i32)
;; CHECK-NEXT:   (i32.mul
;; CHECK-NEXT:    (local.get $0)
;; CHECK-NEXT:    (local.get $0)
;; CHECK-NEXT:   )
;; CHECK-NEXT:  )

;; A call to an import that is not a control point cannot unwind.
;; CHECK-LABEL: (func $calls_puts (result i32)
;; CHECK-NEXT:   (call $puts
;; CHECK-NEXT:    (i32.const 16)
;; CHECK-NEXT:   )
;; CHECK-NEXT:  )

;; CHECK-LABEL: (func $calls_barrier (result i32)
;; CHECK:         (global.get $[[STATE]])
;; CHECK:         (call $MPI_Barrier

;; CHECK-LABEL: (func $calls_caller (result i32)
;; CHECK:         (global.get $[[STATE]])
;; CHECK:         (call $calls_barrier)

;; CHECK-LABEL: (func $_start
;; CHECK:         (global.get $[[STATE]])
;; CHECK:         (call $calls_caller)

;; CHECK-LABEL: (func $asyncify_start_unwind

;; An indirect call can unwind only if some function in the table with the
;; same signature can reach a control point. Asyncify on its own would
;; instrument every function with a call_indirect; the pass names the exact
;; set instead.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=asyncify-control-points %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s

(module
  (import "env" "MPI_Barrier" (func $MPI_Barrier (param i32) (result i32)))
  (type $unary (func (param i32) (result i32)))
  (type $nullary (func (result i32)))
  (table $table 2 2 funcref)
  (elem (i32.const 0) $barrier_in_table $constant_in_table)
  (memory $0 1)
  (func $barrier_in_table (param $x i32) (result i32)
    (call $MPI_Barrier (local.get $x)))
  (func $constant_in_table (result i32)
    (i32.const 42))
  (func $indirect_unary (param $i i32) (result i32)
    (call_indirect (type $unary) (i32.const 0) (local.get $i)))
  (func $indirect_nullary (param $i i32) (result i32)
    (call_indirect (type $nullary) (local.get $i)))
  (func $_start (export "_start")
    (drop (call $indirect_unary (i32.const 0)))
    (drop (call $indirect_nullary (i32.const 1))))
)

;; CHECK:      (global $[[STATE:global\$[0-9]+]] (mut i32)

;; CHECK-LABEL: (func $barrier_in_table
;; CHECK:         (global.get $[[STATE]])

;; CHECK-LABEL: (func $constant_in_table (result i32)
;; CHECK-NEXT:   (i32.const 42)
;; CHECK-NEXT:  )

;; CHECK-LABEL: (func $indirect_unary
;; CHECK:         (global.get $[[STATE]])
;; CHECK:         (call_indirect (type $unary)

;; No function of type $nullary reaches a control point.
;; CHECK-LABEL: (func $indirect_nullary (param $0 i32) (result i32)
;; CHECK-NEXT:   (call_indirect (type $nullary)
;; CHECK-NEXT:    (local.get $0)
;; CHECK-NEXT:   )
;; CHECK-NEXT:  )

;; CHECK-LABEL: (func $_start
;; CHECK:         (global.get $[[STATE]])

;; CHECK-LABEL: (func $asyncify_start_unwind

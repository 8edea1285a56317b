;; A control point whose address is taken (a C function pointer to
;; MPI_Barrier puts the import itself in the table) is reached by every
;; call_indirect of its type: that caller is instrumented, as a caller of a
;; defined function in the table that calls MPI_Barrier would be.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=asyncify-control-points %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s

(module
  (import "env" "MPI_Barrier" (func $MPI_Barrier (param i32) (result i32)))
  (type $unary (func (param i32) (result i32)))
  (table $table 1 1 funcref)
  (elem (i32.const 0) $MPI_Barrier)
  (memory $0 1)
  (func $through_pointer (param $i i32) (result i32)
    (call_indirect (type $unary) (i32.const 0) (local.get $i)))
  (func $_start (export "_start")
    (drop (call $through_pointer (i32.const 0))))
)

;; CHECK:      (global $[[STATE:global\$[0-9]+]] (mut i32)
;; CHECK-LABEL: (func $through_pointer
;; CHECK:         (global.get $[[STATE]])
;; CHECK:         (call_indirect (type $unary)
;; CHECK-LABEL: (func $_start
;; CHECK:         (global.get $[[STATE]])

;; A module without control points keeps the asyncify_* API (the runtime
;; treats every granule alike) but not a single instrumented function.
;; Binaryen reads an empty asyncify-imports list as "every import may unwind",
;; so this also checks that the pass never hands it one.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=asyncify-control-points %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s

(module
  (import "env" "puts" (func $puts (param i32) (result i32)))
  (type $unary (func (param i32) (result i32)))
  (table $table 2 2 funcref)
  (elem (i32.const 0) $square $calls_puts)
  (memory $0 1)
  (func $square (param $x i32) (result i32)
    (i32.mul (local.get $x) (local.get $x)))
  (func $calls_puts (param $x i32) (result i32)
    (call $puts (local.get $x)))
  (func $_start (export "_start")
    (drop (call_indirect (type $unary) (i32.const 7) (i32.const 1))))
)

;; CHECK-DAG: (export "asyncify_start_unwind"
;; CHECK-DAG: (export "asyncify_stop_rewind"
;; CHECK-DAG: (export "asyncify_get_state"

;; CHECK-LABEL: (func $square (param $0 i32) (result i32)
;; CHECK-NEXT:   (i32.mul

;; CHECK-LABEL: (func $calls_puts (param $0 i32) (result i32)
;; CHECK-NEXT:   (call $puts
;; CHECK-NEXT:    (local.get $0)
;; CHECK-NEXT:   )
;; CHECK-NEXT:  )

;; An indirect call can reach nothing that unwinds, so it is left alone too.
;; CHECK-LABEL: (func $_start
;; CHECK-NEXT:   (drop
;; CHECK-NEXT:    (call_indirect (type $unary)
;; CHECK-NEXT:     (i32.const 7)
;; CHECK-NEXT:     (i32.const 1)
;; CHECK-NEXT:    )
;; CHECK-NEXT:   )
;; CHECK-NEXT:  )

;; CHECK-LABEL: (func $asyncify_start_unwind

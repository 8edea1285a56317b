;; A module without control points still gets the section, with the header
;; line alone, so the runtime can tell "none" from "never analysed".
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=control-point-census %t.wasm -o %t.out.wasm
;; RUN: llvm-objcopy --dump-section synergy.control_points=%t.section %t.out.wasm
;; RUN: FileCheck %s --match-full-lines < %t.section

(module
  (import "env" "puts" (func $puts (param i32) (result i32)))
  (memory $0 1)
  (func $main (result i32)
    (call $puts (i32.const 0)))
)

;; CHECK:      synergy.control_points 1
;; CHECK-EMPTY:

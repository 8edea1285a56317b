;; Running the passes twice would asyncify twice; the census detects its own
;; section and refuses, with a one-line error and a non-zero exit.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=control-point-census %t.wasm -o %t.once.wasm
;; RUN: not %synergy-opt --pass=control-point-census %t.once.wasm -o %t.twice.wasm 2>&1 \
;; RUN:   | FileCheck %s -DFILE=%t.once.wasm

(module
  (import "env" "MPI_Barrier" (func $MPI_Barrier (param i32) (result i32)))
  (func $main (result i32)
    (call $MPI_Barrier (i32.const 0)))
)

;; CHECK: [[FILE]]: error: pass control-point-census: module already has a synergy.control_points section; the Synergy passes have run on it before

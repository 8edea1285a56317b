;; SYNERGY_DEBUG_PASSES=1 prints each pass of the pipeline, in order, and
;; validates the module after it.
;;
;; RUN: wasm-as -g --enable-threads %s -o %t.wasm
;; RUN: env SYNERGY_DEBUG_PASSES=1 %synergy-opt --default-pipeline %t.wasm -o %t.out.wasm 2>&1 \
;; RUN:   | FileCheck %s
;; RUN: %synergy-opt --default-pipeline %t.wasm -o %t.quiet.wasm 2>&1 | count 0

(module
  (import "env" "MPI_Barrier" (func $MPI_Barrier (param i32) (result i32)))
  (memory $0 (shared 1 1))
  (func $main (result i32)
    (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
    (call $MPI_Barrier (i32.const 0)))
)

;; CHECK:      synergy-passes: running direct-invokes
;; CHECK-NEXT: synergy-passes: module valid after direct-invokes
;; CHECK-NEXT: synergy-passes: running control-point-census
;; CHECK-NEXT: synergy-passes: module valid after control-point-census
;; CHECK-NEXT: synergy-passes: running serialize-libc
;; CHECK-NEXT: synergy-passes: module valid after serialize-libc
;; CHECK-NEXT: synergy-passes: running export-thread-support
;; CHECK-NEXT: synergy-passes: module valid after export-thread-support
;; CHECK-NEXT: synergy-passes: running thread-local-errno
;; CHECK-NEXT: synergy-passes: module valid after thread-local-errno
;; CHECK-NEXT: synergy-passes: running atomic-spin-wait-loads
;; CHECK-NEXT: synergy-passes: module valid after atomic-spin-wait-loads
;; CHECK-NEXT: synergy-passes: running lower-atomics
;; CHECK-NEXT: synergy-passes: module valid after lower-atomics
;; CHECK-NEXT: synergy-passes: running forward-loop-carried-stores
;; CHECK-NEXT: synergy-passes: module valid after forward-loop-carried-stores
;; CHECK-NEXT: synergy-passes: running asyncify-control-points
;; CHECK-NEXT: synergy-passes: module valid after asyncify-control-points

;; The census lists every control-point import (module "synergy", and names
;; starting MPI_, PMPI_, __kmpc_, omp_, pthread_) and, per function, how many
;; direct calls reach each. Other imports, and the lowered atomics the runtime
;; also provides in module "synergy", are not control points.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=control-point-census %t.wasm -o %t.out.wasm
;; RUN: llvm-objcopy --dump-section synergy.control_points=%t.section %t.out.wasm
;; RUN: FileCheck %s --check-prefix=SECTION --match-full-lines < %t.section
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s --check-prefix=DIS

(module
  (import "env" "MPI_Init" (func $MPI_Init (param i32 i32) (result i32)))
  (import "env" "MPI_Barrier" (func $MPI_Barrier (param i32) (result i32)))
  (import "env" "PMPI_Send" (func $PMPI_Send (param i32) (result i32)))
  (import "env" "__kmpc_fork_call" (func $fork (param i32 i32 i32)))
  (import "env" "omp_get_thread_num" (func $omp_get_thread_num (result i32)))
  (import "env" "pthread_create" (func $pthread_create (param i32 i32 i32 i32) (result i32)))
  (import "synergy" "yield" (func $yield))
  (import "synergy" "atomic_load_i32" (func $atomic_load (param i32) (result i32)))
  (import "env" "puts" (func $puts (param i32) (result i32)))
  (import "env" "MPIX_unrelated" (func $mpix (result i32)))
  (memory $0 1)
  (func $main (result i32)
    (drop (call $MPI_Init (i32.const 0) (i32.const 0)))
    (drop (call $MPI_Barrier (i32.const 1)))
    (drop (call $puts (i32.const 0)))
    (drop (call $atomic_load (i32.const 0)))
    (drop (call $mpix))
    (if (call $omp_get_thread_num)
      (drop (call $MPI_Barrier (i32.const 1))))
    (call $fork (i32.const 0) (i32.const 0) (i32.const 0))
    (call $MPI_Barrier (i32.const 1)))
  (func $worker (param $x i32) (result i32)
    (call $yield)
    (drop (call $pthread_create (i32.const 0) (i32.const 0) (i32.const 0) (local.get $x)))
    (call $yield)
    (i32.const 0))
  (func $quiet (result i32)
    (call $puts (i32.const 4)))
)

;; SECTION:      synergy.control_points 1
;; SECTION-NEXT: import env MPI_Init
;; SECTION-NEXT: import env MPI_Barrier
;; SECTION-NEXT: import env PMPI_Send
;; SECTION-NEXT: import env __kmpc_fork_call
;; SECTION-NEXT: import env omp_get_thread_num
;; SECTION-NEXT: import env pthread_create
;; SECTION-NEXT: import synergy yield
;; SECTION-NEXT: call main env MPI_Init 1
;; SECTION-NEXT: call main env MPI_Barrier 3
;; SECTION-NEXT: call main env __kmpc_fork_call 1
;; SECTION-NEXT: call main env omp_get_thread_num 1
;; SECTION-NEXT: call worker env pthread_create 1
;; SECTION-NEXT: call worker synergy yield 2
;; SECTION-EMPTY:

;; The pass only adds the section; code is untouched.
;; DIS-LABEL: (func $quiet (result i32)
;; DIS-NEXT:   (call $puts
;; DIS:       ;; custom section "synergy.control_points"

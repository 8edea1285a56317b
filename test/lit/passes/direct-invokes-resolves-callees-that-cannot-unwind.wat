;; direct-invokes: an env.invoke_* call whose callee cannot unwind (reach
;; env.synergy_exception_unwind or synergy_longjmp_unwind, or an import the
;; pass does not know) becomes a direct call when its table slot is a
;; constant (also when the slot holds an import that does not unwind), and a
;; call_indirect when no address-taken function of its type can unwind. WASI
;; imports and control points do not unwind; a call_indirect reaches every
;; address-taken function of its type, imports included. An invoke is left
;; alone when the slot holds an unknown import, nothing, or a function of
;; another type (it traps as before), and a pointer invoke when moving the
;; index after the arguments could change it. A module that writes its table
;; gets only the type rule.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=direct-invokes %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s
;; RUN: sed -e 's/^  (func \$void_fn)/  (func $void_fn (table.set $table (i32.const 1) (ref.func $thrower)))/' %s > %t.writes.wat
;; RUN: wasm-as -g --enable-reference-types %t.writes.wat -o %t.writes.wasm
;; RUN: %synergy-opt --pass=direct-invokes %t.writes.wasm -o %t.writes.out.wasm
;; RUN: %wasm-dis %t.writes.out.wasm | FileCheck %s --check-prefix=WRITES

(module
  (import "env" "invoke_ii" (func $invoke_ii (param i32 i32) (result i32)))
  (import "env" "invoke_iiii" (func $invoke_iiii (param i32 i32 i32 i32) (result i32)))
  (import "env" "invoke_v" (func $invoke_v (param i32)))
  (import "env" "synergy_exception_unwind" (func $unwind))
  (import "env" "mystery" (func $mystery (param i32) (result i32)))
  (import "env" "MPI_Barrier" (func $MPI_Barrier (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_sync" (func $fd_sync (param i32) (result i32)))
  (type $unary (func (param i32) (result i32)))
  (type $ternary (func (param i32 i32 i32) (result i32)))
  (table $table 16 16 funcref)
  (elem (i32.const 1) $pure $thrower $calls_thrower $calls_mystery $add3 $calls_wasi
                      $barrier $void_fn $through_unary_pointer $through_ternary_pointer
                      $mystery $MPI_Barrier)
  (memory $0 1)
  (func $pure (param $x i32) (result i32)
    (i32.add (local.get $x) (i32.const 1)))
  (func $thrower (param $x i32) (result i32)
    (if (local.get $x) (then (call $unwind)))
    (local.get $x))
  (func $calls_thrower (param $x i32) (result i32)
    (call $thrower (local.get $x)))
  (func $calls_mystery (param $x i32) (result i32)
    (call $mystery (local.get $x)))
  (func $add3 (param $a i32) (param $b i32) (param $c i32) (result i32)
    (i32.add (local.get $a) (i32.add (local.get $b) (local.get $c))))
  (func $calls_wasi (param $x i32) (result i32)
    (call $fd_sync (local.get $x)))
  (func $barrier (param $x i32) (result i32)
    (call $MPI_Barrier (local.get $x)))
  (func $void_fn)
  (func $through_unary_pointer (param $f i32) (result i32)
    (call_indirect (type $unary) (i32.const 0) (local.get $f)))
  (func $through_ternary_pointer (param $f i32) (result i32)
    (call_indirect (type $ternary) (i32.const 0) (i32.const 0) (i32.const 0) (local.get $f)))
  (func $invokes (param $f i32) (result i32)
    (local $sum i32)
    ;; direct: cannot unwind
    (local.set $sum (call $invoke_ii (i32.const 1) (i32.const 10)))
    (local.set $sum (call $invoke_ii (i32.const 6) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 7) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 10) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 12) (local.get $sum)))
    ;; stay: unwind, transitively, unknown import, indirect call of a type
    ;; with a thrower in the table, an unknown import in the slot, an empty
    ;; slot, a type mismatch
    (local.set $sum (call $invoke_ii (i32.const 2) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 3) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 4) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 9) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 11) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 14) (local.get $sum)))
    (local.set $sum (call $invoke_ii (i32.const 8) (local.get $sum)))
    ;; through a pointer: (i32)->i32 has throwers, (i32 i32 i32)->i32 none
    (local.set $sum (call $invoke_ii (local.get $f) (local.get $sum)))
    (local.set $sum (call $invoke_iiii (local.get $f) (local.get $sum) (i32.const 2) (i32.const 3)))
    (local.set $sum (call $invoke_iiii (local.get $f) (call $pure (local.get $sum)) (i32.const 2) (i32.const 3)))
    (local.set $sum (call $invoke_iiii (i32.load (local.get $f)) (call $pure (local.get $sum)) (i32.const 2) (i32.const 3)))
    (local.set $sum (call $invoke_iiii (local.get $f) (local.tee $f (i32.const 5)) (i32.const 2) (i32.const 3)))
    (call $invoke_v (i32.const 8))
    (local.get $sum))
  (func $_start (export "_start")
    (drop (call $invokes (i32.const 5))))
)

;; CHECK-LABEL: (func $invokes
;; CHECK:        (call $pure
;; CHECK-NEXT:    (i32.const 10)
;; CHECK:        (call $calls_wasi
;; CHECK-NEXT:    (local.get $sum)
;; CHECK:        (call $barrier
;; CHECK-NEXT:    (local.get $sum)
;; CHECK:        (call $through_ternary_pointer
;; CHECK-NEXT:    (local.get $sum)
;; CHECK:        (call $MPI_Barrier
;; CHECK-NEXT:    (local.get $sum)
;; CHECK:        (call $invoke_ii
;; CHECK-NEXT:    (i32.const 2)
;; CHECK:        (call $invoke_ii
;; CHECK-NEXT:    (i32.const 3)
;; CHECK:        (call $invoke_ii
;; CHECK-NEXT:    (i32.const 4)
;; CHECK:        (call $invoke_ii
;; CHECK-NEXT:    (i32.const 9)
;; CHECK:        (call $invoke_ii
;; CHECK-NEXT:    (i32.const 11)
;; CHECK:        (call $invoke_ii
;; CHECK-NEXT:    (i32.const 14)
;; CHECK:        (call $invoke_ii
;; CHECK-NEXT:    (i32.const 8)
;; CHECK:        (call $invoke_ii
;; CHECK-NEXT:    (local.get $f)
;; CHECK:        (call_indirect (type $ternary)
;; CHECK-NEXT:    (local.get $sum)
;; CHECK-NEXT:    (i32.const 2)
;; CHECK-NEXT:    (i32.const 3)
;; CHECK-NEXT:    (local.get $f)
;; CHECK:        (call_indirect (type $ternary)
;; CHECK-NEXT:    (call $pure
;; CHECK-NEXT:     (local.get $sum)
;; CHECK-NEXT:    )
;; CHECK-NEXT:    (i32.const 2)
;; CHECK-NEXT:    (i32.const 3)
;; CHECK-NEXT:    (local.get $f)
;; CHECK:        (call $invoke_iiii
;; CHECK-NEXT:    (i32.load
;; CHECK:        (call $invoke_iiii
;; CHECK-NEXT:    (local.get $f)
;; CHECK-NEXT:    (local.tee $f
;; CHECK:        (call $void_fn)
;; CHECK-NEXT:   (local.get $sum)

;; WRITES-LABEL: (func $invokes
;; WRITES:        (call $invoke_ii
;; WRITES-NEXT:    (i32.const 1)
;; WRITES-NOT:    (call $pure
;; WRITES:        (call_indirect (type $ternary)
;; WRITES:        (call_indirect (type $none_=>_none)
;; WRITES-NEXT:    (i32.const 8)
;; WRITES-NEXT:   )
;; WRITES-NEXT:   (local.get $sum)

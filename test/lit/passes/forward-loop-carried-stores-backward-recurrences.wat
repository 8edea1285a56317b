;; forward-loop-carried-stores keeps the value a loop stores at $p, and loads
;; back at $p + 8 after stepping $p by -8, in a new local: the load of
;; iteration one moves before the loop, the store's value is teed into the
;; local, and the load in the loop reads the local. Offsets must match and
;; the step plus the load's constant must give the store's constant, for any
;; type of full width. Loops where memory could change between the store and
;; the next iteration's load (a second store, a call), where the step comes
;; before the store, where the distance is not one iteration, where the
;; access is narrower than its type, where the load follows the store, or
;; where something before the load could trap otherwise, are left alone.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=forward-loop-carried-stores %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s
;; RUN: wasm2c %t.out.wasm -o %t.c

(module
  (import "env" "observe" (func $observe (param i32)))
  (memory 1)

  ;; x[k] = a[k] * x[k + 1], k falling: $p is &x[k], $q is &a[k].
  (func $backward_f64 (param $p i32) (param $q i32) (param $n i32)
    (loop $next
      (f64.store (local.get $p)
        (f64.mul (f64.load (local.get $q))
                 (f64.load (i32.add (local.get $p) (i32.const 8)))))
      (local.set $q (i32.sub (local.get $q) (i32.const 8)))
      (local.set $p (i32.add (local.get $p) (i32.const -8)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))

  ;; The same with an offset on both accesses, the constant on the left and
  ;; the step written as a subtraction.
  (func $backward_i32_offset (param $p i32) (param $n i32) (result i32)
    (loop $next
      (i32.store offset=16 (local.get $p)
        (i32.add (i32.load offset=16 (i32.add (i32.const 4) (local.get $p))) (i32.const 3)))
      (local.set $p (i32.sub (local.get $p) (i32.const 4)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $n))

  (func $two_stores (param $p i32) (param $n i32)
    (loop $next
      (i64.store (local.get $p) (i64.load (i32.add (local.get $p) (i32.const 8))))
      (i64.store (i32.const 64) (i64.const 0))
      (local.set $p (i32.add (local.get $p) (i32.const -8)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))

  (func $calls_out (param $p i32) (param $n i32)
    (loop $next
      (f32.store (local.get $p) (f32.load (i32.add (local.get $p) (i32.const 4))))
      (call $observe (local.get $p))
      (local.set $p (i32.add (local.get $p) (i32.const -4)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))

  (func $steps_before_store (param $p i32) (param $n i32)
    (loop $next
      (local.set $p (i32.add (local.get $p) (i32.const -8)))
      (f64.store (local.get $p) (f64.load (i32.add (local.get $p) (i32.const 8))))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))

  (func $two_iterations_apart (param $p i32) (param $n i32)
    (loop $next
      (f64.store (local.get $p) (f64.load (i32.add (local.get $p) (i32.const 16))))
      (local.set $p (i32.add (local.get $p) (i32.const -8)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))

  (func $narrow (param $p i32) (param $n i32)
    (loop $next
      (i32.store8 (local.get $p) (i32.load8_u (i32.add (local.get $p) (i32.const 1))))
      (local.set $p (i32.add (local.get $p) (i32.const -1)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))

  (func $load_after_store (param $p i32) (param $n i32) (result f64)
    (local $seen f64)
    (loop $next
      (f64.store (local.get $p) (f64.const 1))
      (local.set $seen (f64.load (i32.add (local.get $p) (i32.const 8))))
      (local.set $p (i32.add (local.get $p) (i32.const -8)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $seen))

  (func $divides_first (param $p i32) (param $n i32) (param $d i32)
    (loop $next
      (i32.store (local.get $p)
        (i32.add (i32.div_s (i32.const 100) (local.get $d))
                 (i32.load (i32.add (local.get $p) (i32.const 4)))))
      (local.set $p (i32.add (local.get $p) (i32.const -4)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
)

;; CHECK:      (func $two_stores
;; CHECK-NEXT:  (loop
;; CHECK:      (func $calls_out
;; CHECK-NEXT:  (loop
;; CHECK:      (func $steps_before_store
;; CHECK-NEXT:  (loop
;; CHECK:      (func $two_iterations_apart
;; CHECK-NEXT:  (loop
;; CHECK:      (func $narrow
;; CHECK-NEXT:  (loop
;; CHECK:      (func $load_after_store
;; CHECK-NEXT:  (local $seen f64)
;; CHECK-NEXT:  (loop
;; CHECK:      (func $divides_first
;; CHECK-NEXT:  (loop
;; CHECK-NOT:  forwarded

;; Recreated functions move to the end of the module.
;; CHECK:      (func $backward_f64
;; CHECK-NEXT:  (local $forwarded.0 f64)
;; CHECK-NEXT:  (local.set $forwarded.0
;; CHECK-NEXT:   (f64.load
;; CHECK-NEXT:    (i32.add
;; CHECK-NEXT:     (local.get $p)
;; CHECK-NEXT:     (i32.const 8)
;; CHECK:       (loop
;; CHECK-NEXT:   (f64.store
;; CHECK-NEXT:    (local.get $p)
;; CHECK-NEXT:    (local.tee $forwarded.0
;; CHECK-NEXT:     (f64.mul
;; CHECK-NEXT:      (f64.load
;; CHECK-NEXT:       (local.get $q)
;; CHECK-NEXT:      )
;; CHECK-NEXT:      (local.get $forwarded.0)

;; CHECK:      (func $backward_i32_offset
;; CHECK-NEXT:  (local $forwarded.0 i32)
;; CHECK-NEXT:  (local.set $forwarded.0
;; CHECK-NEXT:   (i32.load offset=16
;; CHECK-NEXT:    (i32.add
;; CHECK-NEXT:     (i32.const 4)
;; CHECK-NEXT:     (local.get $p)
;; CHECK:       (loop
;; CHECK-NEXT:   (i32.store offset=16
;; CHECK-NEXT:    (local.get $p)
;; CHECK-NEXT:    (local.tee $forwarded.0
;; CHECK-NEXT:     (i32.add
;; CHECK-NEXT:      (local.get $forwarded.0)
;; CHECK-NEXT:      (i32.const 3)

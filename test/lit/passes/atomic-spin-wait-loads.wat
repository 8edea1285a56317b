;; atomic-spin-wait-loads makes atomic the loads a loop waits on: a load at a
;; loop-invariant address whose value decides one of the loop's branches,
;; directly or through a local, in a loop whose stores are all proved apart
;; from it. A signed narrow load becomes an unsigned atomic one, sign-extended
;; after. Loops that call (a call of the module's own function that itself
;; writes and calls nothing does not count) or write memory otherwise than by
;; plain stores, loads a store of the loop may write, loads whose address the
;; loop changes, loads no branch depends on, and unaligned or float loads are
;; left alone, and so is a module without a shared memory. A parameter holds
;; what the direct calls pass, unless the function is exported or in a table.
;; After lower-atomics the waits call the runtime, which the AOT compiler
;; cannot hoist, and wasm2c accepts the result.
;;
;; RUN: wasm-as --enable-threads --enable-sign-ext -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=atomic-spin-wait-loads %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s
;; RUN: %synergy-opt --pass=atomic-spin-wait-loads --pass=lower-atomics %t.wasm -o %t.lowered.wasm
;; RUN: %wasm-dis %t.lowered.wasm | FileCheck %s --check-prefix=LOWERED
;; RUN: wasm2c %t.lowered.wasm -o %t.c
;; RUN: sed -e 's/(memory $memory (shared 1 1))/(memory $memory 1 1)/' -e '/i32.atomic.store/d' %s > %t.unshared.wat
;; RUN: wasm-as --enable-threads --enable-sign-ext -g %t.unshared.wat -o %t.unshared.wasm
;; RUN: %synergy-opt --pass=atomic-spin-wait-loads %t.unshared.wasm -o %t.unshared.out.wasm
;; RUN: %wasm-dis %t.unshared.out.wasm | FileCheck %s --check-prefix=UNSHARED

(module
  (import "env" "observe" (func $observe (param i32)))
  (memory $memory (shared 1 1))
  (global $base (mut i32) (i32.const 64))

  ;; while (flag == -1) ;
  ;; CHECK-LABEL: (func $waits_until_set
  ;; CHECK:      (loop
  ;; CHECK-NEXT:  (br_if
  ;; CHECK-NEXT:   (i32.eq
  ;; CHECK-NEXT:    (i32.atomic.load offset=16
  ;; CHECK-NEXT:     (i32.const 1024)
  ;; LOWERED-LABEL: (func $waits_until_set
  ;; LOWERED:      (call $synergy.atomic_load_i32
  (func $waits_until_set
    (loop $spin
      (br_if $spin (i32.eq (i32.load offset=16 (i32.const 1024)) (i32.const -1)))))

  ;; The flag read into a local, the exit an if, the address a global plus a
  ;; parameter, a signed byte.
  ;; CHECK-LABEL: (func $waits_through_a_local
  ;; CHECK:      (local.set
  ;; CHECK-NEXT:  (i32.extend8_s
  ;; CHECK-NEXT:   (i32.atomic.load8_u
  ;; CHECK-NEXT:    (i32.add
  ;; CHECK-NEXT:     (global.get $base)
  ;; CHECK-NEXT:     (local.get {{.*}})
  (func $waits_through_a_local (param $p i32) (result i32)
    (local $seen i32)
    (block $done
      (loop $spin
        (local.set $seen (i32.load8_s (i32.add (global.get $base) (local.get $p))))
        (if (i32.ne (local.get $seen) (i32.const 0)) (then (br $done)))
        (br $spin)))
    (local.get $seen))

  ;; A 64-bit word, narrow and unsigned.
  ;; CHECK-LABEL: (func $waits_on_a_half_word
  ;; CHECK:      (i64.atomic.load16_u
  (func $waits_on_a_half_word (param $p i32)
    (loop $spin
      (br_if $spin (i64.eqz (i64.load16_u (local.get $p))))))

  ;; while (flag == -1) yield(); with a yield that does nothing (MPICH's
  ;; MTest_thread_yield), which the AOT compile inlines.
  ;; CHECK-LABEL: (func $waits_while_yielding
  ;; CHECK:      (i32.atomic.load
  (func $yields (result i32)
    (call $nothing)
    (i32.const 0))
  (func $nothing)
  (func $waits_while_yielding
    (loop $spin
      (drop (call $yields))
      (br_if $spin (i32.eq (i32.load (i32.const 1024)) (i32.const -1)))))

  ;; Calls are followed at most 8 deep (the stack stays bounded): a wait
  ;; behind a chain of 10 calls that no other loop proved effect-free is
  ;; left alone.
  ;; CHECK-LABEL: (func $waits_behind_ten_calls
  ;; CHECK-NOT:  atomic
  (func $c1 (call $c2))
  (func $c2 (call $c3))
  (func $c3 (call $c4))
  (func $c4 (call $c5))
  (func $c5 (call $c6))
  (func $c6 (call $c7))
  (func $c7 (call $c8))
  (func $c8 (call $c9))
  (func $c9 (call $c10))
  (func $c10)
  (func $waits_behind_ten_calls
    (loop $spin
      (call $c1)
      (br_if $spin (i32.load (i32.const 1024)))))

  ;; A called function that stores, sets a global, or calls itself.
  ;; CHECK-LABEL: (func $calls_a_writer
  ;; CHECK-NOT:  atomic
  (func $stores (i32.store (i32.const 2048) (i32.const 1)))
  (func $sets_a_global (global.set $base (i32.const 0)))
  (func $recurses (result i32) (call $recurses))
  (func $calls_a_writer
    (loop $spin
      (call $stores)
      (br_if $spin (i32.load (i32.const 1024))))
    (loop $spin
      (call $sets_a_global)
      (br_if $spin (i32.load (i32.const 1024))))
    (loop $spin
      (br_if $spin (i32.add (call $recurses) (i32.load (i32.const 1024))))))

  ;; for (;;) counter++: no branch depends on the load.
  ;; CHECK-LABEL: (func $counts_forever
  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $calls_in_the_loop
  (func $counts_forever
    (loop $spin
      (i32.store (i32.const 2048) (i32.add (i32.load (i32.const 2048)) (i32.const 1)))
      (br $spin)))

  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $walks_memory
  (func $calls_in_the_loop
    (loop $spin
      (call $observe (i32.const 0))
      (br_if $spin (i32.load (i32.const 1024)))))

  ;; A search: the address moves with the loop.
  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $sums_an_invariant_word
  (func $walks_memory (param $p i32) (result i32)
    (loop $next
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br_if $next (i32.load (local.get $p))))
    (local.get $p))

  ;; An invariant load that no branch depends on.
  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $unaligned_and_float
  (func $sums_an_invariant_word (param $n i32) (result i32)
    (local $sum i32)
    (loop $next
      (local.set $sum (i32.add (local.get $sum) (i32.load (i32.const 1024))))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $sum))

  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $already_atomic
  (func $unaligned_and_float
    (loop $spin
      (br_if $spin (i32.load align=1 (i32.const 1025)))
      (br_if $spin (f32.eq (f32.load (i32.const 1024)) (f32.const 0)))))

  ;; A loop with an atomic store in it writes memory.
  ;; CHECK-NOT:  i32.atomic.load
  ;; CHECK:      (func $counts_while_waiting
  (func $already_atomic
    (loop $spin
      (i32.atomic.store (i32.const 2048) (i32.const 1))
      (br_if $spin (i32.load (i32.const 1024)))))

  ;; while (!flag) spins++; on volatile words: the counter is another
  ;; constant address, 8 bytes wide here, ending right below the flag.
  ;; CHECK:      (br_if
  ;; CHECK-NEXT:  (i32.eqz
  ;; CHECK-NEXT:   (i32.atomic.load
  ;; CHECK-NEXT:    (i32.const 1024)
  (func $counts_while_waiting
    (loop $spin
      (i64.store (i32.const 1016) (i64.add (i64.load (i32.const 1016)) (i64.const 1)))
      (br_if $spin (i32.eqz (i32.load (i32.const 1024))))))

  ;; while (!w->flag) w->spins++;: one invariant base, offsets 0 and 4; the
  ;; flag's offset is folded into the address here, the counter's is not.
  ;; CHECK-LABEL: (func $counts_in_the_next_field
  ;; CHECK:      (i32.atomic.load
  ;; CHECK-NEXT:  (i32.add
  ;; CHECK-NEXT:   (local.get $waiter)
  (func $counts_in_the_next_field (param $waiter i32)
    (loop $spin
      (i32.store offset=4 (local.get $waiter)
        (i32.add (i32.load offset=4 (local.get $waiter)) (i32.const 1)))
      (br_if $spin (i32.eqz (i32.load (i32.add (local.get $waiter) (i32.const 0)))))))

  ;; while (!flag) slots[i & 7]++;: the slot's address, set before the loop,
  ;; lies in [2048, 2080), above the flag.
  ;; CHECK-LABEL: (func $counts_in_a_masked_slot
  ;; CHECK:      (i32.atomic.load
  ;; CHECK-NEXT:  (i32.const 1024)
  (func $counts_in_a_masked_slot (param $i i32)
    (local $slot i32)
    (local.set $slot
      (i32.add (i32.shl (i32.and (local.get $i) (i32.const 7)) (i32.const 2)) (i32.const 2048)))
    (loop $spin
      (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
      (br_if $spin (i32.eqz (i32.load (i32.const 1024))))))

  ;; Stores that may write the flag's bytes: the flag itself, a wider word
  ;; over it, a pointer the loop knows nothing of, a base the loop moves, a
  ;; slot whose index is not bounded, and the word 2 bytes below the flag
  ;; (the base minus 2, modulo 2^32), whose top half is the flag's bottom.
  ;; CHECK-LABEL: (func $stores_that_may_reach_the_flag
  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $counts_in_a_slot_over_the_flag
  (func $stores_that_may_reach_the_flag (param $p i32) (param $q i32) (param $i i32)
    (local $slot i32)
    (loop $spin
      (i32.store (i32.const 1024) (i32.const 0))
      (br_if $spin (i32.eqz (i32.load (i32.const 1024)))))
    (loop $spin
      (i64.store (i32.const 1020) (i64.const 0))
      (br_if $spin (i32.eqz (i32.load (i32.const 1024)))))
    (loop $spin
      (i32.store (local.get $q) (i32.const 1))
      (br_if $spin (i32.eqz (i32.load (local.get $p)))))
    (loop $spin
      (local.set $q (i32.add (local.get $q) (i32.const 4)))
      (i32.store (local.get $q) (i32.const 1))
      (br_if $spin (i32.eqz (i32.load (local.get $q)))))
    (local.set $slot (i32.add (i32.shl (local.get $i) (i32.const 2)) (i32.const 2048)))
    (loop $spin
      (i32.store (local.get $slot) (i32.const 1))
      (br_if $spin (i32.eqz (i32.load (i32.const 1024)))))
    (loop $spin
      (i32.store (i32.add (local.get $p) (i32.const -2)) (i32.const 1))
      (br_if $spin (i32.eqz (i32.load (local.get $p))))))

  ;; Slots [1000, 1032) include the flag's word.
  ;; CHECK-NOT:  atomic
  (func $counts_in_a_slot_over_the_flag (param $i i32)
    (local $slot i32)
    (local.set $slot
      (i32.add (i32.shl (i32.and (local.get $i) (i32.const 7)) (i32.const 2)) (i32.const 1000)))
    (loop $spin
      (i32.store (local.get $slot) (i32.const 1))
      (br_if $spin (i32.eqz (i32.load (i32.const 1024))))))

  ;; The flag's base is set before its load in every iteration, but the
  ;; store above the set reads the base's initial zero first: it writes the
  ;; flag (1024) in the first iteration, so the two are not one base.
  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $counts_through_parameters
  (func $stores_before_the_base_is_set
    (local $base i32)
    (loop $spin
      (i32.store offset=1024 (local.get $base) (i32.const 1))
      (local.set $base (i32.const 1020))
      (br_if $spin (i32.eqz (i32.load offset=4 (local.get $base))))))

  ;; Waits on one pointer parameter and counts through another; its only
  ;; callers pass constants, which the AOT compile sees once it inlines it.
  ;; CHECK:      (i32.atomic.load
  ;; CHECK-NEXT:  (local.get $flag)
  (func $counts_through_parameters (param $flag i32) (param $count i32)
    (loop $spin
      (i32.store (local.get $count) (i32.add (i32.load (local.get $count)) (i32.const 1)))
      (br_if $spin (i32.eqz (i32.load (local.get $flag))))))
  (func $calls_with_constants
    (call $counts_through_parameters (i32.const 1024) (i32.const 2048))
    (call $counts_through_parameters (i32.const 1024) (i32.const 2052)))

  ;; The same, called once with a counter that may be the flag, and once
  ;; exported or in a table: anything may be passed. (ref.func counts as
  ;; well, but wasm2c refuses the module binaryen writes with one.)
  ;; CHECK-LABEL: (func $counts_through_a_parameter_that_may_be_the_flag
  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $counts_through_exported_parameters
  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $counts_through_tabled_parameters
  ;; CHECK-NOT:  atomic
  ;; CHECK:      (func $calls_with_a_possible_flag
  (func $counts_through_a_parameter_that_may_be_the_flag (param $flag i32) (param $count i32)
    (loop $spin
      (i32.store (local.get $count) (i32.const 1))
      (br_if $spin (i32.eqz (i32.load (local.get $flag))))))
  (func $counts_through_exported_parameters (export "counts") (param $flag i32) (param $count i32)
    (loop $spin
      (i32.store (local.get $count) (i32.const 1))
      (br_if $spin (i32.eqz (i32.load (local.get $flag))))))
  (func $counts_through_tabled_parameters (param $flag i32) (param $count i32)
    (loop $spin
      (i32.store (local.get $count) (i32.const 1))
      (br_if $spin (i32.eqz (i32.load (local.get $flag))))))
  (table $table 1 funcref)
  (elem (i32.const 0) $counts_through_tabled_parameters)
  (func $calls_with_a_possible_flag (param $p i32)
    (call $counts_through_a_parameter_that_may_be_the_flag (i32.const 1024) (i32.const 2048))
    (call $counts_through_a_parameter_that_may_be_the_flag (i32.const 1024) (local.get $p))
    (call $counts_through_exported_parameters (i32.const 1024) (i32.const 2048))
    (call $counts_through_tabled_parameters (i32.const 1024) (i32.const 2048)))
)

;; UNSHARED: (func $waits_until_set
;; UNSHARED-NOT: .atomic.

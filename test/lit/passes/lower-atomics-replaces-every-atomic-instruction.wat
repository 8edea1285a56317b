;; Every atomic instruction becomes a call to a "synergy" import named for its
;; operation, width and type; the memarg offset is folded into the address
;; (through an overflow-checking helper); the memory stops being shared; and
;; wasm2c, which refuses atomics and shared memory, accepts the result. Every
;; import the pass can emit must exist in the runtime under wasm2c's name.
;;
;; RUN: wasm-as -g --enable-threads %s -o %t.wasm
;; RUN: %synergy-opt --pass=lower-atomics %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s --check-prefix=GONE
;; RUN: wasm2c %t.out.wasm -o %t.c
;; RUN: grep -o 'Z_synergyZ_[a-z0-9_]*' %t.h | sort -u > %t.imported
;; RUN: clang++-19 -std=c++20 -c -I%src_root/runtime -I/usr/include \
;; RUN:   %src_root/runtime/granule/AtomicHostFunctions.cpp -o %t.host.o
;; RUN: llvm-nm --defined-only %t.host.o | grep -o 'Z_synergyZ_[a-z0-9_]*' | sort -u > %t.provided
;; RUN: comm -23 %t.imported %t.provided | count 0
;; RUN: count 67 < %t.provided

(module
  (memory $0 (shared 1 4))
  (func $loads (param $p i32) (result i64)
    (drop (i32.atomic.load (local.get $p)))
    (drop (i32.atomic.load8_u offset=1 (local.get $p)))
    (drop (i32.atomic.load16_u offset=2 (local.get $p)))
    (drop (i64.atomic.load8_u (local.get $p)))
    (drop (i64.atomic.load16_u (local.get $p)))
    (drop (i64.atomic.load32_u (local.get $p)))
    (i64.atomic.load offset=8 (local.get $p)))
  (func $stores (param $p i32)
    (i32.atomic.store offset=4 (local.get $p) (i32.const 1))
    (i32.atomic.store8 (local.get $p) (i32.const 2))
    (i32.atomic.store16 (local.get $p) (i32.const 3))
    (i64.atomic.store (local.get $p) (i64.const 4))
    (i64.atomic.store8 (local.get $p) (i64.const 5))
    (i64.atomic.store16 (local.get $p) (i64.const 6))
    (i64.atomic.store32 (local.get $p) (i64.const 7)))
  (func $rmws (param $p i32) (result i64)
    (drop (i32.atomic.rmw.add (local.get $p) (i32.const 1)))
    (drop (i32.atomic.rmw.sub (local.get $p) (i32.const 1)))
    (drop (i32.atomic.rmw.and (local.get $p) (i32.const 1)))
    (drop (i32.atomic.rmw.or (local.get $p) (i32.const 1)))
    (drop (i32.atomic.rmw.xor (local.get $p) (i32.const 1)))
    (drop (i32.atomic.rmw.xchg (local.get $p) (i32.const 1)))
    (drop (i32.atomic.rmw8.add_u (local.get $p) (i32.const 1)))
    (drop (i32.atomic.rmw16.xchg_u (local.get $p) (i32.const 1)))
    (drop (i64.atomic.rmw32.sub_u (local.get $p) (i64.const 1)))
    (i64.atomic.rmw.or offset=16 (local.get $p) (i64.const 1)))
  (func $cmpxchgs (param $p i32) (result i32)
    (drop (i64.atomic.rmw.cmpxchg (local.get $p) (i64.const 0) (i64.const 1)))
    (drop (i64.atomic.rmw32.cmpxchg_u (local.get $p) (i64.const 0) (i64.const 1)))
    (drop (i32.atomic.rmw8.cmpxchg_u (local.get $p) (i32.const 0) (i32.const 1)))
    (i32.atomic.rmw.cmpxchg offset=12 (local.get $p) (i32.const 0) (i32.const 1)))
  (func $waits (param $p i32) (result i32)
    (drop (memory.atomic.wait32 offset=4 (local.get $p) (i32.const 0) (i64.const -1)))
    (drop (memory.atomic.wait64 (local.get $p) (i64.const 0) (i64.const 100)))
    (atomic.fence)
    (memory.atomic.notify offset=24 (local.get $p) (i32.const 1)))
)

;; CHECK: (import "synergy" "atomic_load_i32" (func $[[LOAD32:.*]] (param i32) (result i32)))
;; CHECK: (import "synergy" "atomic_load8_u_i32" (func $[[LOAD8:.*]] (param i32) (result i32)))
;; CHECK: (import "synergy" "atomic_load32_u_i64" (func {{.*}} (param i32) (result i64)))
;; CHECK: (import "synergy" "atomic_store_i32" (func $[[STORE32:.*]] (param i32 i32)))
;; CHECK: (import "synergy" "atomic_store32_i64" (func {{.*}} (param i32 i64)))
;; CHECK: (import "synergy" "atomic_rmw_add_i32" (func {{.*}} (param i32 i32) (result i32)))
;; CHECK: (import "synergy" "atomic_rmw16_xchg_u_i32" (func {{.*}} (param i32 i32) (result i32)))
;; CHECK: (import "synergy" "atomic_rmw32_sub_u_i64" (func {{.*}} (param i32 i64) (result i64)))
;; CHECK: (import "synergy" "atomic_rmw_or_i64" (func {{.*}} (param i32 i64) (result i64)))
;; CHECK: (import "synergy" "atomic_cmpxchg_i64" (func {{.*}} (param i32 i64 i64) (result i64)))
;; CHECK: (import "synergy" "atomic_cmpxchg32_u_i64" (func {{.*}} (param i32 i64 i64) (result i64)))
;; CHECK: (import "synergy" "atomic_cmpxchg8_u_i32" (func {{.*}} (param i32 i32 i32) (result i32)))
;; CHECK: (import "synergy" "atomic_wait32" (func $[[WAIT32:.*]] (param i32 i32 i64) (result i32)))
;; CHECK: (import "synergy" "atomic_wait64" (func {{.*}} (param i32 i64 i64) (result i32)))
;; CHECK: (import "synergy" "atomic_fence" (func $[[FENCE:.*]]))
;; CHECK: (import "synergy" "atomic_notify" (func $[[NOTIFY:.*]] (param i32 i32) (result i32)))
;; CHECK: (memory $0 1 4)

;; CHECK-LABEL: (func $loads
;; CHECK:        (call $[[LOAD32]]
;; CHECK-NEXT:     (local.get $p)
;; CHECK-NEXT:    )
;; CHECK:        (call $[[LOAD8]]
;; CHECK-NEXT:     (call $[[ADDRESS:.*]]
;; CHECK-NEXT:      (local.get $p)
;; CHECK-NEXT:      (i32.const 1)
;; CHECK-NEXT:     )

;; CHECK-LABEL: (func $stores
;; CHECK-NEXT:   (call $[[STORE32]]
;; CHECK-NEXT:    (call $[[ADDRESS]]
;; CHECK-NEXT:     (local.get $p)
;; CHECK-NEXT:     (i32.const 4)
;; CHECK-NEXT:    )
;; CHECK-NEXT:    (i32.const 1)
;; CHECK-NEXT:   )

;; The offsets of wait and notify (which the C API cannot read) survive too.
;; CHECK-LABEL: (func $waits
;; CHECK:         (call $[[WAIT32]]
;; CHECK-NEXT:     (call $[[ADDRESS]]
;; CHECK-NEXT:      (local.get $p)
;; CHECK-NEXT:      (i32.const 4)
;; CHECK-NEXT:     )
;; CHECK-NEXT:     (i32.const 0)
;; CHECK-NEXT:     (i64.const -1)
;; CHECK:        (call $[[FENCE]])
;; CHECK-NEXT:   (call $[[NOTIFY]]
;; CHECK-NEXT:    (call $[[ADDRESS]]
;; CHECK-NEXT:     (local.get $p)
;; CHECK-NEXT:     (i32.const 24)
;; CHECK-NEXT:    )
;; CHECK-NEXT:    (i32.const 1)

;; ptr + offset, or 0xffffffff when the sum wraps, so the host bounds check
;; still traps where wasm would.
;; CHECK:      (func $[[ADDRESS]] (param $0 i32) (param $1 i32) (result i32)
;; CHECK-NEXT:  (select
;; CHECK-NEXT:   (i32.add
;; CHECK-NEXT:    (local.get $0)
;; CHECK-NEXT:    (local.get $1)
;; CHECK-NEXT:   )
;; CHECK-NEXT:   (i32.const -1)
;; CHECK-NEXT:   (i32.ge_u
;; CHECK-NEXT:    (i32.add
;; CHECK-NEXT:     (local.get $0)
;; CHECK-NEXT:     (local.get $1)
;; CHECK-NEXT:    )
;; CHECK-NEXT:    (local.get $1)

;; GONE-NOT: shared
;; GONE-NOT: {{(i32|i64|memory)\.atomic|atomic\.fence}}

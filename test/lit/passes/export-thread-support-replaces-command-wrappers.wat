;; wasm-ld exports malloc, free and __wasm_init_tls of a command module
;; through wrappers that run the static constructors first. The thread
;; runtime must call the functions themselves: export-thread-support exports
;; them as __synergy_malloc, __synergy_free and __synergy_init_tls and drops
;; the wrappers' exports. A threaded module without malloc is an error.
;;
;; RUN: wasm-as -g %s -o %t.wasm
;; RUN: %synergy-opt --pass=export-thread-support %t.wasm -o %t.out.wasm
;; RUN: %wasm-dis %t.out.wasm | FileCheck %s
;; RUN: sed -e 's/(func \$malloc /(func $not_malloc /' -e 's/(call \$malloc /(call $not_malloc /' %s > %t.nomalloc.wat
;; RUN: wasm-as -g %t.nomalloc.wat -o %t.nomalloc.wasm
;; RUN: not %synergy-opt --pass=export-thread-support %t.nomalloc.wasm -o %t.bad.wasm 2>&1 \
;; RUN:   | FileCheck %s --check-prefix=MISSING

(module
  (import "env" "__kmpc_fork_call" (func $fork (param i32 i32 i32 i32)))
  (memory 1)
  (global $__tls_base (mut i32) (i32.const 0))
  (func $__wasm_call_ctors)
  (func $malloc (param $size i32) (result i32) (local.get $size))
  (func $free (param $p i32))
  (func $__wasm_init_tls (param $p i32) (global.set $__tls_base (local.get $p)))
  (func $malloc.command_export (export "malloc") (param $size i32) (result i32)
    (call $__wasm_call_ctors)
    (call $malloc (local.get $size)))
  (func $free.command_export (export "free") (param $p i32)
    (call $__wasm_call_ctors)
    (call $free (local.get $p)))
  (func $__wasm_init_tls.command_export (export "__wasm_init_tls") (param $p i32)
    (call $__wasm_call_ctors)
    (call $__wasm_init_tls (local.get $p)))
  (func $_start (export "_start")
    (call $fork (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
)

;; CHECK-NOT: (export "malloc"
;; CHECK-NOT: (export "free"
;; CHECK-NOT: (export "__wasm_init_tls"
;; CHECK-DAG: (export "__synergy_malloc" (func $malloc))
;; CHECK-DAG: (export "__synergy_free" (func $free))
;; CHECK-DAG: (export "__synergy_init_tls" (func $__wasm_init_tls))

;; MISSING: a threaded module must define 'malloc'

// The driver's plan (-###): -O reaches only the compile step, because clang
// would run wasm-opt (stripping the name section) if the link saw it; every
// link puts a 1 MiB stack first and allows the control-point imports; the
// Synergy passes run last.
// RUN: %synergy-cc -### -O2 -g -DX=1 %s -o %t.wasm 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN: "--target=wasm32-wasi" {{.*}}"-O2" "-g" "-DX=1" "-c" "{{.*}}link-defaults.c" "-o" "[[OBJ:[^"]+]]"
// PLAN-NOT: "-O2"
// PLAN: "-Wl,--stack-first" "-Wl,-z,stack-size=1048576" "-Wl,--allow-undefined-file={{.*}}control-points.syms" "-g" "[[OBJ]]" "-Qunused-arguments" "-o" "{{.*}}.wasm"
// PLAN: (in-process) synergy pass pipeline on "{{.*}}.wasm"
//
// -c and -r/-shared outputs do not go through the passes.
// RUN: %synergy-cc -### -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=OBJECT
// OBJECT-NOT: pass pipeline
//
// The stack starts at address 0 and is 1 MiB; -Wl,-z,stack-size overrides it.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %wasm-dis %t.wasm | FileCheck %s --check-prefix=STACK
// STACK: (global $__stack_pointer (mut i32) (i32.const 1048576))
// RUN: %synergy-cc %s -Wl,-z,stack-size=131072 -o %t.small.wasm
// RUN: %wasm-dis %t.small.wasm | FileCheck %s --check-prefix=SMALL
// SMALL: (global $__stack_pointer (mut i32) (i32.const 131072))
int main(void) { return 0; }

// The driver's plan (-###): -O reaches only the compile step, because clang
// would run wasm-opt (stripping the name section) if the link saw it; every
// link puts an 8 MiB stack first, allows the control-point imports, and ends
// with the guest POSIX library (setjmp/longjmp, fcntl locks, processor count)
// and wasi-libc's emulations; the Synergy passes run last.
// RUN: %synergy-cc -### -O2 -g -DX=1 %s -o %t.wasm 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN: "--target=wasm32-wasi" {{.*}}"-D_WASI_EMULATED_SIGNAL" "-D_WASI_EMULATED_PROCESS_CLOCKS" "-D_WASI_EMULATED_MMAN" "-D_WASI_EMULATED_GETPID" "-mllvm" "-enable-emscripten-cxx-exceptions" "-fno-exceptions" "-mllvm" "-enable-emscripten-sjlj" {{.*}}"-O2" "-g" "-DX=1" "-c" "{{.*}}link-defaults.c" "-o" "[[OBJ:[^"]+]]"
// PLAN-NOT: "-O2"
// PLAN: "-Wl,--stack-first" "-Wl,-z,stack-size=8388608" "-Wl,--allow-undefined-file={{.*}}control-points.syms" "-g" "[[OBJ]]" "-Wl,--wrap=fcntl" "-Wl,--wrap=sysconf" "-Wl,--wrap=chdir" "-Wl,--undefined=__synergy_enter_working_directory" "{{.*}}share/synergy/lib/libsynergy-posix.a" "-lwasi-emulated-signal" "-lwasi-emulated-process-clocks" "-lwasi-emulated-mman" "-lwasi-emulated-getpid" "-Qunused-arguments" "-o" "{{.*}}.wasm"
// PLAN: (in-process) synergy pass pipeline on "{{.*}}.wasm"
//
// -c and -r/-shared outputs do not go through the passes.
// RUN: %synergy-cc -### -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=OBJECT
// OBJECT-NOT: pass pipeline
//
// The stack starts at address 0 and is 8 MiB; -Wl,-z,stack-size overrides it.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %wasm-dis %t.wasm | FileCheck %s --check-prefix=STACK
// STACK: (global $__stack_pointer (mut i32) (i32.const 8388608))
// RUN: %synergy-cc %s -Wl,-z,stack-size=131072 -o %t.small.wasm
// RUN: %wasm-dis %t.small.wasm | FileCheck %s --check-prefix=SMALL
// SMALL: (global $__stack_pointer (mut i32) (i32.const 131072))
int main(void) { return 0; }

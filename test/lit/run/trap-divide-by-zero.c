// Integer division by zero is a wasm trap, reported with its function.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: trap: integer divide by zero in divide
// CHECK: exit=134
__attribute__((noinline)) int divide(int a, int b) { return a / b; }

int main(int argc, char** argv) { return divide(10, argc - 1); }

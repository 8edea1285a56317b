// SYNERGY_HWLOWER_DEBUG prints every stage of the pipeline, in order.
// RUN: env SYNERGY_HWLOWER_DEBUG=1 synergy-hwc %s --emit-verilog %t.v 2>&1 | FileCheck %s

// CHECK: hwlower: flatten-blocks
// CHECK-NEXT: hwlower: recognize-clock-generator
// CHECK-NEXT: hwlower: fold-constant-variables
// CHECK-NEXT: hwlower: keep-combinational-blocks
// CHECK-NEXT: hwlower: hoist-power-on-prefixes
// CHECK-NEXT: hwlower: merge-processes-into-core
// CHECK-NEXT: hwlower: find-idle-negedge
// CHECK-NEXT: hwlower: replace-guards-with-native-clock
// CHECK-NEXT: hwlower: inline-unobserved-non-blocking-assigns
// CHECK-NEXT: hwlower: lower-non-blocking-assigns
// CHECK-NEXT: hwlower: write-task-results-to-targets
// CHECK-NEXT: hwlower: merge-duplicate-case-items
// CHECK-NEXT: hwlower: lower-task-arguments
// CHECK-NEXT: hwlower: find-pass-local-variables
// CHECK-NEXT: hwlower: lower-core-to-state-machine
// CHECK-NEXT: hwlower: thread-pass-through-states
// CHECK-NEXT: hwlower: share-memory-write-ports
// CHECK-NEXT: hwlower: assign-state-ids
// CHECK-NEXT: hwlower: emit-verilog
module tb(input wire clock);
  reg x;
  always @(posedge clock) x <= ~x;
endmodule

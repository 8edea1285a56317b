// mergeProcessesIntoCore (Fig. 3): every process is one conjunct of the
// core, in source order, guarded by its mangled guard.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: __fire_0 = __init;
// CHECK-NEXT: __fire_1 = __pos_clock;
// CHECK-NEXT: __fire_2 = __neg_clock;
// CHECK-NEXT: __fire_3 = __pos_clock || __neg_reset;
// CHECK-NEXT: __fire_4 = __x_inits_pending ? !__init_pending : (__any_a || __any_b);
// CHECK: if (__fire_0) begin
// CHECK-NEXT: a = 4'sb0001;
// CHECK: if (__fire_1) begin
// CHECK-NEXT: a = {a + 4'b0001};
// CHECK: if (__fire_2) begin
// CHECK-NEXT: b = {b + 4'b0001};
// CHECK: if (__fire_3) begin
// CHECK: if (__fire_4) begin
// CHECK-NEXT: s = {a + b};

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [3:0] a, b, s, r;
  reg reset;
  initial a = 1;
  always @(posedge clock) a = a + 1;
  always @(negedge clock) b = b + 1;
  always @(posedge clock or negedge reset) if (!reset) r = 0; else r = r + 1;
  always @* s = a + b;
endmodule

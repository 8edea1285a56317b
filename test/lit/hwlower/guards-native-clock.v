// replaceGuardsWithNativeClock (Fig. 4): previous values of the guard
// variables, mangled guards derived from them at the start of a pass, and
// the core triggered by __clk only.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng

// CHECK: reg __prev_clock = 1'd0;
// CHECK: reg [1:0] __prev_phase = 2'd0;
// CHECK: assign __done = __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock) || (phase != __prev_phase));
// CHECK: always @(posedge __clk) begin
// CHECK-NOT: always @(
// CHECK: if (__state == 0 && __task_r == 16'd0 && ((clock != __prev_clock) || (phase != __prev_phase))) begin
// CHECK-NEXT: __pos_clock = clock & ~__prev_clock;
// CHECK-NEXT: __neg_clock = ~clock & __prev_clock;
// CHECK-NEXT: __any_phase = phase != __prev_phase;
// CHECK-NEXT: __fire_0 = __pos_clock;
// CHECK-NEXT: __fire_1 = __neg_clock;
// CHECK-NEXT: __fire_2 = __any_phase;
// CHECK-NEXT: __prev_clock = clock;
// CHECK-NEXT: __prev_phase = phase;
// CHECK-NEXT: __state = 1;

// The edge history is state, so a restart does not see a spurious edge.
// ENG: state {{[0-9]+}} internal 1 0 0 0 1 "__prev_clock" "__prev_clock"
module tb(input wire clock);
  reg [1:0] phase;
  reg [7:0] x;
  always @(posedge clock) phase = phase + 1;
  always @(negedge clock) x = x + 1;
  always @(phase) x = x ^ 8'h55;
endmodule

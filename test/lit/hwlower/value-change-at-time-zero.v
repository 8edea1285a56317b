// replaceGuardsWithNativeClock, time 0: an always block that waits for value
// changes only starts before the initializers under vvp, so it fires once,
// in the pass after the first (where the initial blocks ran); another always
// block ignores the variables whose declaration initializer changes their
// power-on value meanwhile, and keeps its other terms. A variable
// initialized to its power-on value (g) needs no mask.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v

// CHECK: __fire_0 = __init;
// CHECK-NEXT: __fire_1 = __x_inits_pending ? !__init_pending : (__any_c);
// CHECK-NEXT: __fire_2 = __x_inits_pending ? (1'b0) : (__pos_f);
// CHECK-NEXT: __fire_3 = __x_inits_pending ? (__any_g) : (__pos_f || __any_g);
// CHECK-NEXT: __fire_4 = __pos_clock;
// CHECK: __x_inits_pending = __init_pending;
// CHECK-NEXT: __init_pending = 1'b0;
module tb(input wire clock);
  integer c = 0;
  reg f = 1;
  reg g = 0;
  always @(c) $display("c %0d", c);
  always @(posedge f) $display("f");
  always @(g or posedge f) $display("g");
  always @(posedge clock) begin
    c <= c + 1;
    f <= ~f;
    g <= ~g;
  end
endmodule

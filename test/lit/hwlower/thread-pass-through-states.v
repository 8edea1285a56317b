// threadPassThroughStates: a transition into a state that only jumps goes to
// the end of its chain instead. Empty else branches, the phi states where
// branches rejoin and the end of the process disappear, the rest are
// renumbered densely in their old order (forward transitions stay forward),
// and a trap that now resumes where `__finishing` would send it loses the
// check. 21 states before, 10 after: __state needs 4 bits, not 5.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// No state is left whose whole body is a transition:
// RUN: grep -A1 "__task_r == 16'd0 && __state == [0-9]*) begin" %t.v | FileCheck %s --check-prefix=GONE

// CHECK: reg [3:0] __state = 0;
// `n`'s initializer runs at power-on (hoistPowerOnPrefixes), so the always
// block is the only conjunct, and its fire check ends the pass when it is idle.
// CHECK: if (__task_r == 16'd0 && __state == 1) begin
// CHECK-NEXT: if (__fire_0) __state = 4'd[[ALWAYS:[0-9]+]]; else __state = 4'd0;
// `if (n == 2) $display` has no else: its false branch goes to the next if.
// CHECK: if (__task_r == 16'd0 && __state == [[ALWAYS]]) begin
// CHECK-NEXT: n = $signed({n + 32'sb{{0+}}1});
// CHECK-NEXT: if ({n == 32'sb{{0+}}10}) __state = 4'd[[TWO:[0-9]+]]; else __state = 4'd[[SECOND:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[TWO]]) begin
// CHECK-NEXT: __task_r = 16'd1; __state = 4'd[[SECOND]];
// CHECK-NEXT: if (__finishing) __state = 4'd0;
// CHECK: if (__task_r == 16'd0 && __state == [[SECOND]]) begin
// CHECK-NEXT: if ({n > 32'sb{{0+}}11}) __state = 4'd[[BIG:[0-9]+]]; else __state = 4'd[[SMALL:[0-9]+]];
// The inner if's false branch skips both rejoins (inner and outer) at once.
// CHECK: if (__task_r == 16'd0 && __state == [[BIG]]) begin
// CHECK-NEXT: if ({n == 32'sb{{0+}}101}) __state = 4'd[[FIVE:[0-9]+]]; else __state = 4'd[[THIRD:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[SMALL]]) begin
// CHECK-NEXT: __task_r = 16'd3; __state = 4'd[[THIRD]];
// CHECK: if (__task_r == 16'd0 && __state == [[FIVE]]) begin
// CHECK-NEXT: __task_r = 16'd2; __state = 4'd[[THIRD]];
// The last if: its false branch and its $finish both end the pass directly,
// and the $finish trap needs no `__finishing` check any more.
// CHECK: if (__task_r == 16'd0 && __state == [[THIRD]]) begin
// CHECK-NEXT: if ({n == 32'sb{{0+}}110}) __state = 4'd[[FINISH:[0-9]+]]; else __state = 4'd0;
// CHECK: if (__task_r == 16'd0 && __state == [[FINISH]]) begin
// CHECK-NEXT: __finishing = 1'b1;
// CHECK-NEXT: __task_r = 16'd4; __state = 4'd0;
// CHECK-NEXT: end
// CHECK-NEXT: if (__task_r != 16'd0) __ol_active = 1'b0;

// GONE: if (__task_r == 16'd0 && __state == 1) begin
// GONE-NOT: {{^ *}}__state =
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0;
  always @(posedge clock) begin
    n = n + 1;
    if (n == 2) $display("two");
    if (n > 3) begin
      if (n == 5) $display("five");
    end else begin
      $display("small");
    end
    if (n == 6) $finish;
  end
endmodule

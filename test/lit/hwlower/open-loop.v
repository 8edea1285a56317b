// The open-loop controller: at a tick boundary it toggles the clock itself
// and counts down the ticks it has left (the host reads how many it ran as
// N - __ticks_left); a trap stops it; in open loop the NBAs of a finished
// pass are latched in the same native cycle, so a tick without traps costs
// one __clk cycle.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ONCE < %t.v

// CHECK: if (__open_loop) begin
// CHECK-NEXT: __ol_active = 1'b1; __ol_left = __open_loop_n;
// CHECK: if (__ol_active && __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock)) && !(__nbp_n)) begin
// CHECK-NEXT: if (__ol_left == 32'd0) begin
// CHECK-NEXT: __ol_active = 1'b0;
// CHECK-NEXT: end else begin
// CHECK-NEXT: clock = ~clock;
// CHECK-NEXT: __ol_two_ticks = !clock && __ol_left != 32'd1;
// CHECK-NEXT: __ol_left = __ol_left - {30'd0, __ol_two_ticks, !__ol_two_ticks};
// CHECK: if (__task_r != 16'd0) __ol_active = 1'b0;
// CHECK-NEXT: end
// CHECK-NEXT: if (__update || (__ol_active && __state == 0 && __task_r == 16'd0 && !((clock != __prev_clock)))) begin
// CHECK-NEXT: if (__nbp_n) begin n = __nba_n; __nbp_n = 1'b0; end
// CHECK-NEXT: end
// CHECK-NEXT: end
// CHECK-NEXT: end
// __update and open loop share that one copy of the commit.
// ONCE: n = __nba_n;
// ONCE-NOT: n = __nba_n;
module tb(input wire clock);
  reg [31:0] n, seen;
  // `seen` reads n after its NBA, so n keeps its shadow.
  always @(posedge clock) begin
    n <= n + 1;
    seen = n;
  end
endmodule

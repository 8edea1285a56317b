// recognizeClockGenerator: a port-less test bench's `always #5 clk = ~clk`
// disappears; `clk` becomes the runtime-driven input and 5 the half period.
// RUN: synergy-hwc %s -o %t.eng --emit-verilog %t.v
// RUN: FileCheck %s < %t.eng
// RUN: FileCheck %s --check-prefix=V < %t.v

// CHECK: clock [[CLK:[0-9]+]] 5
// CHECK: state [[CLK]] input 1 0 0 0 1 "tb.clk" "clk"

// The clock is a register only the runtime (or the open-loop controller)
// writes; no conjunct is triggered by a delay.
// V: reg clk = 1'd0;
// V-NOT: __fire_{{[0-9]+}} = {{.*}}clk{{.*}}clk
// V: __fire_{{[0-9]+}} = __pos_clk;
module tb;
  reg clk;
  initial clk = 0;
  always #5 clk = ~clk;
  reg [3:0] n = 0;
  always @(posedge clk) n <= n + 1;
endmodule

// A constant-bound `for` without traps stays a Verilog `for` inside its
// state (synthesis unrolls it, and the tick still takes one native cycle);
// with a trap inside, it becomes states, the step at the end of the body.
// Functions keep their `for` too (yosys refuses `while` there).
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: function [7:0] ones;
// CHECK: for (ones__k = {{.*}}; {ones__k < {{.*}}}; ones__k = {{.*}}) begin
// CHECK: if (__fire_0) __state =
// CHECK: for (i = 32'sb{{0+}}; {i < 32'sb{{0+}}100}; i = $signed({i + 32'sb{{0+}}1})) begin
// CHECK-NEXT: acc = {acc + ones((($unsigned(i) < 64'd4) ? data[i] : 8'd0))};
// CHECK-NEXT: end
// CHECK-NEXT: i = 32'sb{{0+}};
// CHECK: if ({i < 32'sb{{0+}}10}) __state =
// CHECK: __task_r = 16'd1;
// CHECK: i = $signed({i + 32'sb{{0+}}1});

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [7:0] acc;
  reg [7:0] data [0:3];
  integer i;
  function [7:0] ones(input [7:0] v);
    integer k;
    begin
      ones = 0;
      for (k = 0; k < 8; k = k + 1) ones = ones + v[k];
    end
  endfunction
  always @(posedge clock) begin
    for (i = 0; i < 4; i = i + 1) acc = acc + ones(data[i]);
    for (i = 0; i < 2; i = i + 1) $display("%d", acc);
  end
endmodule

// foldConstantVariables: a register only set to a constant before time can
// advance becomes a net (readable by id, never written or saved); registers
// written twice, after a task, or by a task stay registers.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng

// ENG-DAG: state {{[0-9]+}} wire 64 0 0 0 0 "tb.ratio"
// ENG-DAG: state {{[0-9]+}} wire 8 1 0 0 0 "tb.neg"
// ENG-DAG: state {{[0-9]+}} reg 8 0 0 0 1 "tb.x"
// ENG-DAG: state {{[0-9]+}} reg 8 0 0 0 1 "tb.twice"
// ENG-DAG: state {{[0-9]+}} reg 8 0 0 0 1 "tb.late"
// ENG-DAG: state {{[0-9]+}} reg 32 1 0 0 1 "tb.scanned"

// CHECK-DAG: wire [63:0] ratio;
// CHECK-DAG: wire signed [7:0] neg;
// x's initializer, written again later, runs at power-on (hoistPowerOnPrefixes).
// CHECK-DAG: reg [7:0] x;
// CHECK-DAG: x = 8'b00000001;
// CHECK: assign neg = 8'sb11111101;
// CHECK-NEXT: assign ratio = 64'b1011111111110101111010111000010100011110101110000101000111101100;
// CHECK-NOT: assign x =
// CHECK-NOT: assign twice =
// CHECK-NOT: assign late =
// CHECK-NOT: ratio = __sa_wdata
// CHECK-NOT: neg = __sa_wdata
module tb(input wire clock);
  reg [63:0] ratio = 64'hbff5eb851eb851ec;
  reg signed [7:0] neg = -8'sd3;
  reg [7:0] x = 8'd1;
  reg [7:0] twice = 8'd2;
  reg [7:0] late;
  integer scanned = 0;
  initial begin
    twice = 8'd4;
    $display("start");
    late = 8'd5;
    $sscanf("7", "%d", scanned);
  end
  always @(posedge clock) begin
    x = x + ratio[7:0] + neg + twice + late + scanned[7:0];
    $display("%0d %0d", x, ratio);
  end
endmodule

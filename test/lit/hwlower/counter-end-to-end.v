// The vertical slice: a counter with $display and $finish compiles to an
// engine file whose task table and state table the runtime can use.
// RUN: synergy-hwc %s -o %t.eng --emit-verilog %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: FileCheck %s --check-prefix=V < %t.v

// ENG: SYNERGY-ENGINE 3
// ENG-NEXT: top "tb"
// ENG-NEXT: clock 0 1
// ENG-NEXT: yield 0
// ENG-NEXT: state 0 input 1 0 0 0 1 "tb.clock" "clock"
// ENG-NEXT: state 1 reg 8 0 0 0 1 "tb.count" "count"
// ENG: task 1 "$display" "tb" "{{.*}}counter-end-to-end.v" [[@LINE+18]] - 0 0 2
// ENG-NEXT: arg string - - - 0 0 0 0 "count=%d"
// ENG-NEXT: arg value 1 - - 8 0 0 0 ""
// ENG-NEXT: task 2 "$finish"
// ENG: verilog
// ENG: module synergy_engine (
// ENG: end

// V: module synergy_engine (
// V: input wire __clk,
// V: output wire [15:0] __task,
// V: output reg [63:0] __sa_rdata
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] count = 0;
  always @(posedge clock) begin
    count <= count + 1;
    $display("count=%d", count);
    if (count == 5) $finish;
  end
endmodule

// Under $yield, user variables are volatile unless (* non_volatile *);
// compiler registers and the clock are always saved.
// RUN: synergy-hwc %s -o %t.eng
// RUN: FileCheck %s < %t.eng

// CHECK: yield 1
// CHECK: state {{[0-9]+}} input 1 0 0 0 1 "tb.clock"
// CHECK: state {{[0-9]+}} reg 8 0 0 0 1 "tb.kept"
// CHECK: state {{[0-9]+}} reg 8 0 0 0 0 "tb.scratch"
// CHECK: state {{[0-9]+}} internal 1 0 0 0 1 "__prev_clock"
// CHECK: task 1 "$yield"
module tb(input wire clock);
  (* non_volatile *) reg [7:0] kept;
  reg [7:0] scratch;
  always @(posedge clock) begin
    scratch = kept + 1;
    kept = scratch;
    if (kept == 8'd10) $yield;
  end
endmodule

// A memory's lowest declared index travels in the manifest (`state` field
// <base>, format version 2 on), so the runtime can map $readmemh/$fread
// addresses, which are Verilog indices, onto elements. Element 0 is the
// lowest index whatever the declared direction; a negative base survives.
// An engine file of the previous format is refused, not misread.
// RUN: synergy-hwc %s -o %t.eng
// RUN: FileCheck %s < %t.eng
// RUN: sed 's/^SYNERGY-ENGINE 3$/SYNERGY-ENGINE 2/' %t.eng > %t.v1.eng
// RUN: not synergy-run --engine compiled %t.v1.eng 2>&1 | FileCheck %s --check-prefix=OLD

// CHECK: SYNERGY-ENGINE 3
// CHECK-DAG: state {{[0-9]+}} reg 8 0 16 16 1 "tb.up" "up"
// CHECK-DAG: state {{[0-9]+}} reg 8 0 16 16 1 "tb.down" "down"
// CHECK-DAG: state {{[0-9]+}} reg 4 0 8 -4 1 "tb.around" "around"
// CHECK-DAG: state {{[0-9]+}} reg 4 0 4 0 1 "tb.zero" "zero"
// CHECK-DAG: state {{[0-9]+}} reg 8 0 0 0 1 "tb.scalar" "scalar"
// OLD: error: {{.*}}engine format version 2, expected 3; recompile it with synergy-cc
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] up [16:31];
  reg [7:0] down [31:16];
  reg [3:0] around [-4:3];
  reg [3:0] zero [0:3];
  reg [7:0] scalar = 0;
  always @(posedge clock) begin
    up[20] = scalar;
    down[20] = scalar;
    around[-1] = scalar[3:0];
    zero[1] = scalar[3:0];
    scalar = scalar + 1;
    $display("%h %h %h %h", up[20], down[20], around[-1], zero[1]);
    if (scalar == 3) $finish;
  end
endmodule

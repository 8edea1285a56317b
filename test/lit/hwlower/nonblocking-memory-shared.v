// lowerNonBlockingAssigns: whole-element NBA sites of one memory that lie
// in different arms of one case or if share a shadow (one commit, one
// write port); a site that may run in the same pass as them gets its own.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: reg [5:0] __nbai_0 = 0;
// CHECK: reg [5:0] __nbai_1 = 0;
// CHECK: assign __there_are_updates = __nbap_0 | __nbap_1;
// CHECK: __nbav_0 = b; __nbai_0 = $unsigned({{.*}}a}); __nbap_0 = 1'b1;
// CHECK: __nbav_0 = a; __nbai_0 = $unsigned({{.*}}b}); __nbap_0 = 1'b1;
// CHECK: __nbav_0 = 4'b0001; __nbai_0 = $unsigned(2'sb00); __nbap_0 = 1'b1;
// CHECK: __nbav_1 = 4'b0000; __nbai_1 = $unsigned({{.*}}); __nbap_1 = 1'b1;
// CHECK: if (__nbap_0) begin mem[__nbai_0] = __nbav_0; __nbap_0 = 1'b0; end
// CHECK-NEXT: if (__nbap_1) begin mem[__nbai_1] = __nbav_1; __nbap_1 = 1'b0; end
// CHECK-NOT: mem[__nbai_

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [3:0] mem [0:15];
  reg [3:0] a, b;
  reg [1:0] op;
  always @(posedge clock) begin
    case (op)
      2'd0: mem[a] <= b;
      2'd1: mem[b] <= a;
      default: if (a[0]) mem[0] <= 4'd1;
    endcase
    mem[a + 5'd1] <= 4'd0;
  end
endmodule

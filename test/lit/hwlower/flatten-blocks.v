// flattenBlocks: fork/join runs its branches in order, nested begin/end is
// spliced, so the whole body lands in one state, in source order.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: if (__task_r == 16'd0 && __state == 1) begin
// CHECK-NEXT: if (__fire_0) begin
// CHECK-NEXT: a = {a + 8'b00000001};
// CHECK-NEXT: b = {b + 8'b00000010};
// CHECK-NEXT: c = {a + b};
// CHECK-NEXT: end
// CHECK-NEXT: __state = 1'd0;
// CHECK-NEXT: end

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [7:0] a, b, c;
  always @(posedge clock) begin
    fork
      a = a + 1;
      begin
        begin
          b = b + 2;
        end
      end
    join
    c = a + b;
  end
endmodule

// A memory written only through non-blocking assignments sharing one shadow
// (mips32's register file) gets one write port for that commit and the
// state-access write: both set the port's enable, element and value, and a
// single write at the end of the clocked block stores it. A memory the core
// also writes with blocking assignments keeps its separate writes, and so
// does one whose NBAs sit in a loop (a shadow memory of their own).
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: reg [[PORT:__memw[0-9]+]]_en;
// CHECK-NEXT: reg [31:0] [[PORT]]_index;
// CHECK-NEXT: reg [15:0] [[PORT]]_value;
// CHECK-NOT: reg __memw
// CHECK: always @(posedge __clk) begin
// CHECK-NEXT: [[PORT]]_en = 1'b0; [[PORT]]_index = __sa_index; [[PORT]]_value = __sa_wdata[15:0];
// CHECK-NEXT: if (__sa_we) begin
// CHECK-DAG: : [[PORT]]_en = 1'b1;
// CHECK-DAG: : scratch[__sa_index] = __sa_wdata[7:0];
// CHECK-DAG: : looped[__sa_index] = __sa_wdata[7:0];
// CHECK: scratch[{{.*}}] = {{.*}};
// CHECK: begin [[PORT]]_en = 1'b1; [[PORT]]_index = __nbai_{{[0-9]+}}; [[PORT]]_value = __nbav_{{[0-9]+}};
// CHECK: if ([[PORT]]_en) regs[[[PORT]]_index] = [[PORT]]_value;
// CHECK-NEXT: end
// CHECK-NEXT: endmodule

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [15:0] regs [0:7];
  reg [7:0] scratch [0:3];
  reg [7:0] looped [0:3];
  reg [2:0] pc = 0;
  integer k;
  always @(posedge clock) begin
    case (pc[1:0])
      2'd0: regs[pc] <= pc * 3;
      2'd1: regs[pc + 1] <= regs[pc] + 1;
      default: ;
    endcase
    scratch[pc[1:0]] = regs[pc][7:0];
    for (k = 0; k < 4; k = k + 1) looped[k] <= scratch[k] + pc;
    pc <= pc + 1;
    $display("%0d %0d %0d %0d", pc, regs[pc], scratch[pc[1:0]], looped[pc[1:0]]);
  end
endmodule

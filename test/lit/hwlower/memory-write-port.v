// A memory written only through non-blocking assignments sharing one shadow
// (mips32's register file, `regs`) gets one write port for that commit and
// the state-access write: both set the port's enable, element and value, and
// a single write at the end of the clocked block stores it
// (shareMemoryWritePorts). So does a memory with one blocking write outside
// loops that nothing reads later in the same cycle (`hist`, read only in the
// other branch). A memory read after its write in the same cycle
// (`scratch`), or written by NBAs in a loop (`looped`, through a shadow
// memory), keeps its separate writes.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK-DAG: reg [7:0] [[HIST:__memw[0-9]+]]_value;
// CHECK-DAG: reg [15:0] [[REGS:__memw[0-9]+]]_value;
// CHECK: always @(posedge __clk) begin
// CHECK-DAG: [[HIST]]_en = 1'b0; [[HIST]]_index = __sa_index; [[HIST]]_value = __sa_wdata[7:0];
// CHECK-DAG: [[REGS]]_en = 1'b0; [[REGS]]_index = __sa_index; [[REGS]]_value = __sa_wdata[15:0];
// CHECK: if (__sa_we) begin
// CHECK-DAG: : [[HIST]]_en = 1'b1;
// CHECK-DAG: : [[REGS]]_en = 1'b1;
// CHECK-DAG: : scratch[__sa_index] = __sa_wdata[7:0];
// CHECK-DAG: : looped[__sa_index] = __sa_wdata[7:0];
// CHECK: scratch[{{.*}}] = {{.*}};
// CHECK: [[HIST]]_en = 1'b1; [[HIST]]_index = {{.*}}pc{{.*}}; [[HIST]]_value = {{.*}};
// CHECK: begin [[REGS]]_en = 1'b1; [[REGS]]_index = __nbai_{{[0-9]+}}; [[REGS]]_value = __nbav_{{[0-9]+}};
// CHECK-DAG: if ([[HIST]]_en) hist[[[HIST]]_index] = [[HIST]]_value;
// CHECK-DAG: if ([[REGS]]_en) regs[[[REGS]]_index] = [[REGS]]_value;
// CHECK: endmodule

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [15:0] regs [0:7];
  reg [7:0] scratch [0:3];
  reg [7:0] looped [0:3];
  reg [7:0] hist [0:3];
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
    if (pc[0]) hist[pc[1:0]] = pc + 3'd1;
    else $display("hist %0d", hist[pc[1:0]]);
  end
endmodule

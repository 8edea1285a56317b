// foldConstantVariables on memories: a memory whose every write is a
// constant to a constant element at the start of an initial block becomes a
// ROM (an `initial` block in the emitted module; readable by id, never
// written or saved); a memory also written later, by a loop whose values
// depend on more than its loop variable, or by a task stays a register memory
// behind the state-access port.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: FileCheck %s --check-prefix=READ < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// ENG-DAG: state {{[0-9]+}} wire 8 0 4 0 0 "tb.rom"
// ENG-DAG: state {{[0-9]+}} reg 8 0 4 0 1 "tb.later"
// ENG-DAG: state {{[0-9]+}} reg 8 0 4 0 1 "tb.looped"
// ENG-DAG: state {{[0-9]+}} reg 8 0 4 0 1 "tb.loaded"

// CHECK: reg [7:0] rom [0:3];
// CHECK: initial begin
// CHECK: rom[{{.*}}] = 8'b00010001;
// CHECK-NEXT: rom[{{.*}}] = 8'b00100010;
// CHECK-NEXT: rom[{{.*}}] = 8'b00110011;
// CHECK-NEXT: rom[{{.*}}] = 8'b01000100;
// The constant writes after them run at power-on too (hoistPowerOnPrefixes);
// the loop, whose values need an addition over `i`, stays in the core.
// CHECK-NEXT: i = 2'sb00;
// CHECK-NEXT: later[{{.*}}] = 8'b00000001;
// CHECK-NEXT: end
// CHECK-NOT: rom[{{.*}}] = __sa_wdata
// CHECK-DAG: later[__sa_index] = __sa_wdata
// CHECK-DAG: looped[__sa_index] = __sa_wdata
// CHECK-DAG: loaded[__sa_index] = __sa_wdata
// CHECK-NOT: rom[{{.*}}] =
// CHECK: for (j = {{.*}}) begin
// CHECK-NEXT: looped[j] =

// No task reads the ROM by id, so it has no state-access read arm.
// READ: __sa_rdata = {later[__sa_index]};
// READ-NOT: __sa_rdata = {rom

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [7:0] rom [0:3];
  reg [7:0] later [0:3];
  reg [7:0] looped [0:3];
  reg [7:0] loaded [0:3];
  reg [1:0] i = 0;
  integer j;
  initial begin
    rom[0] = 8'h11; rom[1] = 8'h22; rom[2] = 8'h33; rom[3] = 8'h44;
    later[0] = 8'h1;
    for (j = 0; j < 4; j = j + 1) looped[j] = j + i;
    $readmemh("none.hex", loaded);
  end
  always @(posedge clock) begin
    later[i] = rom[i];
    i = i + 1;
    $display("%0d %0d %0d %0d", rom[i], later[i], looped[i], loaded[i]);
  end
endmodule

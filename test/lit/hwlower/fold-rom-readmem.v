// foldConstantVariables on file loads: a memory whose one write is a leading
// $readmemh/$readmemb of a file readable at compile time becomes a ROM with
// the file's words as initial contents (range arguments and @ records
// honoured, as the runtime's parser reads them), and the manifest records
// the file's hash. A missing file, a load that would warn (too few words),
// or too many (vvp warns for both), or a memory written again keeps the task
// and a register memory.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: cp %S/Inputs/rom.hex %S/Inputs/rom-bits.txt %t.dir/
// RUN: cd %t.dir && synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// ENG-DAG: state {{[0-9]+}} wire 8 0 8 0 0 "tb.rom"
// ENG-DAG: state {{[0-9]+}} wire 8 0 10 1 0 "tb.ranged"
// ENG-DAG: state {{[0-9]+}} reg 8 0 8 0 1 "tb.many"
// ENG-DAG: state {{[0-9]+}} wire 4 0 4 0 0 "tb.bits"
// ENG-DAG: state {{[0-9]+}} reg 8 0 8 0 1 "tb.missing"
// ENG-DAG: state {{[0-9]+}} reg 8 0 16 0 1 "tb.short"
// ENG-DAG: state {{[0-9]+}} reg 8 0 8 0 1 "tb.written"
// ENG-DAG: task {{[0-9]+}} "$readmemh" {{.*}} 2
// ENG-DAG: arg string - - - 0 0 0 0 "none.hex"
// ENG-DAG: romfile "rom.hex" {{[0-9a-f]+$}}
// ENG-DAG: romfile "rom-bits.txt" {{[0-9a-f]+$}}
// ENG-NOT: romfile
// ENG: verilog

// CHECK: initial begin
// CHECK-DAG: rom[0] = 8'h11;
// CHECK-DAG: rom[1] = 8'h22;
// CHECK-DAG: rom[7] = 8'h88;
// CHECK-DAG: ranged[2] = 8'h11;
// CHECK-DAG: ranged[9] = 8'h88;
// CHECK-DAG: bits[2] = 4'b1010;
// CHECK-DAG: bits[3] = 4'b101;
// CHECK-NOT: ranged[1] =
// CHECK-NOT: bits[1] =
// CHECK: end
// CHECK-NOT: rom[{{.*}}] = __sa_wdata
// CHECK-DAG: missing[__sa_index] = __sa_wdata
// CHECK-DAG: short[__sa_index] = __sa_wdata
// CHECK-DAG: many[__sa_index] = __sa_wdata
// CHECK-DAG: written[__sa_index] = __sa_wdata

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [7:0] rom [0:7];
  reg [7:0] ranged [1:10];
  reg [7:0] many [0:7];
  reg [3:0] bits [0:3];
  reg [7:0] missing [0:7];
  reg [7:0] short [0:15];
  reg [7:0] written [0:7];
  reg [2:0] i = 0;
  initial begin
    $readmemh("rom.hex", rom);
    $readmemh("rom.hex", ranged, 3, 10);
    $readmemh("rom.hex", many, 0, 3);
    $readmemb("rom-bits.txt", bits);
    $readmemh("none.hex", missing);
    $readmemh("rom.hex", short);
    $readmemh("rom.hex", written);
  end
  always @(posedge clock) begin
    written[i] = rom[i] + ranged[i + 3];
    i = i + 1;
    $display("%h %h %h %h %h %h %h", rom[i], ranged[i + 3], many[i], bits[i], missing[i], short[i], written[i]);
  end
endmodule

// foldConstantVariables on memory fill loops: a leading constant-bound `for`
// whose body writes elements of one memory from its loop variable alone
// makes that memory a ROM. The loop moves into the ROM's initial block over
// a fresh variable of the loop variable's type, and the original loop stays
// with an empty body, so `i` still ends at 19 as in the original (the
// design prints it). A loop that also reads another variable keeps its
// memory a register memory; a loop that fills nothing foldable does not stop
// the scan for later constant writes. The frontend's width helpers
// (`__trunc_32_16`) count as constant operations.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=SA < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// ENG-DAG: state {{[0-9]+}} wire 32 0 20 0 0 "tb.header"
// ENG-DAG: state {{[0-9]+}} reg 8 0 4 0 1 "tb.mixed"
// ENG-DAG: state {{[0-9]+}} wire 8 0 4 0 0 "tb.after"
// ENG-DAG: state {{[0-9]+}} wire 16 1 9 -4 0 "tb.squares"

// CHECK: reg signed [31:0] __rom_loop0;
// CHECK: initial begin
// CHECK-DAG: after[{{.*}}] = 8'b00000101;
// CHECK-DAG: header[{{.*}}] = 32'b00000001000000000000000000000000;
// CHECK-NEXT: for (__rom_loop0 = {{.*}}; {{.*}}__rom_loop0{{.*}}; __rom_loop0 = {{.*}}__rom_loop0{{.*}}) begin
// CHECK-NEXT: header[__rom_loop0] = {{.*}}__rom_loop0{{.*}};
// CHECK-NEXT: end
// CHECK-NEXT: header[{{.*}}] = 32'sb00000000000000000000000000000000;
// CHECK-NEXT: for (__rom_loop1 = {{.*}}) begin
// CHECK-NEXT: squares[{{.*}}__rom_loop1{{.*}}] = {{.*}}__trunc_32_16({{.*}}__rom_loop1{{.*}};
// CHECK-NEXT: end
// The constant writes that follow run at power-on too (hoistPowerOnPrefixes).
// The original loop remains, empty, for the value it leaves in `i`. The loop
// over `mixed`, whose values need an addition over `seed`, stays in the core.
// CHECK-NEXT: seed = 8'sb00000011;
// CHECK-NEXT: for (i = {{.*}}; {{.*}}; i = {{.*}}) begin
// CHECK-NEXT: end
// CHECK-NEXT: end
// CHECK: for (j = {{.*}}) begin
// CHECK-NEXT: mixed[j] = {{.*}}seed{{.*}};
// SA-NOT: header[{{.*}}] = __sa_wdata
// SA-NOT: after[{{.*}}] = __sa_wdata
// SA: mixed[__sa_index] = __sa_wdata
// SA-NOT: header[{{.*}}] = __sa_wdata
// SA-NOT: after[{{.*}}] = __sa_wdata

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [31:0] header [0:19];
  reg [7:0] mixed [0:3];
  reg [7:0] after [0:3];
  reg signed [15:0] squares [-4:4];
  reg [7:0] seed = 3;
  integer i, j;
  initial begin
    header[0] = 32'h01000000;
    for (i = 1; i < 19; i = i + 1) header[i] = 32'h11111111 * ((i - 1) % 15 + 1);
    header[19] = 0;
    for (j = 0; j < 4; j = j + 1) mixed[j] = j + seed;
    for (j = -4; j <= 4; j = j + 1) squares[j] = j * j - 3;
    after[0] = 8'h5; after[1] = 8'h6; after[2] = 8'h7; after[3] = 8'h8;
  end
  always @(posedge clock) begin
    $display("%0d %h %h %h %0d", i, header[i - 2], mixed[i & 3], after[i & 3], squares[i & 3]);
    seed = seed + 1;
  end
endmodule

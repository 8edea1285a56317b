// A memory NBA inside a loop writes many elements in one tick: it goes to a
// shadow memory with a pending bit per element, all latched by update.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: reg [7:0] __nbs_mem [0:3];
// CHECK-NEXT: reg [3:0] __nbsp_mem = 0;
// CHECK: assign __there_are_updates = (|__nbsp_mem);
// CHECK: end else begin
// CHECK-NEXT: if (!__update) begin
// CHECK: for (i = {{.*}}) begin
// CHECK-NEXT: __nbs_mem[i] = {{.*}}; __nbsp_mem[i] = 1'b1;
// CHECK: if (__update || (__ol_active && {{.*}})) begin
// CHECK-NEXT: if (|__nbsp_mem) begin for (__nbk = 0; __nbk < 4; __nbk = __nbk + 1) if (__nbsp_mem[__nbk]) mem[__nbk] = __nbs_mem[__nbk]; __nbsp_mem = 0; end

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [7:0] mem [0:3];
  integer i;
  always @(posedge clock)
    for (i = 0; i < 4; i = i + 1) mem[i] <= mem[3 - i] + 1;
endmodule

// inlineUnobservedNonBlockingAssigns: an NBA whose target nothing reads
// later in the tick becomes a blocking write without a shadow register;
// one read after it (in its process, through a net, by another process)
// or a loop around it keeps the shadow.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK-NOT: __nba_x
// CHECK-NOT: __nba_w
// CHECK: assign __there_are_updates = __nbp_y | __nbp_z | __nbp_p | __nbp_q;
// CHECK: __nba_y = x; __nbp_y = 1'b1;
// CHECK-NEXT: x = {x + y};
// CHECK-NEXT: seen = y;
// CHECK-NEXT: __nba_z = {{.*}}; __nbp_z = 1'b1;
// CHECK-NEXT: __nba_p = {{.*}}; __nbp_p = 1'b1;
// CHECK-NEXT: seen = p2;
// CHECK: __nba_q = {{.*}}; __nbp_q = 1'b1;
// CHECK: w = seen;

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] x = 1, y, z, p, q, w, seen;
  wire [7:0] p2 = p + 1;
  integer i;
  initial w = 3;
  always @(posedge clock) begin
    y <= x;
    x <= x + y;
    seen = y;
    z <= 1;
    p <= 2;
    seen = p2;
    for (i = 0; i < 2; i = i + 1) q <= q + i;
    w <= seen;
  end
  always @(posedge clock) seen = z;
endmodule

// lowerNonBlockingAssigns: `<=` writes a shadow and a pending flag; only
// __update (or the open-loop controller at a tick boundary) latches it.
// Partial writes carry a bit mask; one at a run-time offset merges into the
// shadow under a shifted mask, so a part straddling w's edge writes only its
// bits inside w. Memory writes carry their element.
// RUN: synergy-hwc %s --emit-verilog %t.v
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: assign __there_are_updates = __nbp_a | __nbp_b | __nbp_w | __nbap_0;
// CHECK: end else begin
// CHECK-NEXT: if (!__update) begin
// CHECK: if (__fire_0) begin
// CHECK-NEXT: __nba_a = b; __nbp_a = 1'b1;
// CHECK-NEXT: __nba_b = a; __nbp_b = 1'b1;
// CHECK-NEXT: __nba_w = {(__nba_w & ~({{.*}} << ({{.*}}))) | (({{.*}}, a} << ({{.*}})) & ({{.*}}))}; __nbm_w = __nbm_w | ({{.*}} << ({{.*}})); __nbp_w = 1'b1;
// CHECK-NEXT: __nbav_0 = a; __nbai_0 = $unsigned({{.*}}b}); __nbap_0 = 1'b1;
// CHECK: if (__update || (__ol_active && {{.*}})) begin
// CHECK-NEXT: if (__nbp_a) begin a = __nba_a; __nbp_a = 1'b0; end
// CHECK-NEXT: if (__nbp_b) begin b = __nba_b; __nbp_b = 1'b0; end
// CHECK-NEXT: if (__nbp_w) begin w = (w & ~__nbm_w) | (__nba_w & __nbm_w); __nbm_w = 0; __nbp_w = 1'b0; end
// The memory's commit and its state-access write share one write port
// (EmitVerilog), which stores at the end of the clocked block.
// CHECK-NEXT: if (__nbap_0) begin __memw0_en = 1'b1; __memw0_index = __nbai_0; __memw0_value = __nbav_0; __nbap_0 = 1'b0; end
// CHECK: if (__memw0_en) mem[__memw0_index] = __memw0_value;

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [3:0] a, b;
  reg [15:0] w;
  reg [3:0] mem [0:15];
  always @(posedge clock) begin
    a <= b;
    b <= a;
    w[a*4 +: 4] <= a;
    mem[b] <= a;
  end
endmodule

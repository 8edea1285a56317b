// findPassLocalVariables: a register that every process writes before it
// reads it (t, and k, written by its loop's initialization) gets no
// state-access arms; one read before its write on some path (kept: only
// one branch writes it; acc: read first), shown by a task (shown) or
// driving a net (drives) keeps them.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: always @* begin
// CHECK: case (__sa_id[{{[0-9]+}}:0])
// CHECK-NOT: = {t};
// CHECK-NOT: = {k};
// CHECK-DAG: __sa_rdata = {acc};
// CHECK-DAG: __sa_rdata = {drives};
// CHECK-DAG: __sa_rdata = {kept};
// CHECK-DAG: __sa_rdata = {shown};
// CHECK: default: __sa_rdata = 64'd0;
// CHECK: if (__sa_we) begin
// CHECK-NOT: : t = __sa_wdata
// CHECK-NOT: : k = __sa_wdata
// CHECK: default: ;

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] t, acc, kept, shown, drives;
  integer k;
  wire [7:0] net = drives + 1;
  always @(posedge clock) begin
    t = acc + 1;
    if (t[0]) kept = t;
    acc = acc + t + kept;
    for (k = 0; k < 2; k = k + 1) t = t + net;
    shown = t;
    drives = shown;
    $display("%0d", shown);
  end
endmodule

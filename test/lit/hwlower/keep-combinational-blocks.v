// keepCombinationalBlocks: a true @* block stays `always @*` outside the
// core (its outputs readable like nets, never written or saved, its inputs
// without __prev_ copies); a latch, an incomplete sensitivity list, a block
// whose input a process writes with a blocking assignment, and one that
// calls a task all stay conjuncts of the core.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// ENG-DAG: state {{[0-9]+}} wire 9 0 0 0 0 "tb.sum"
// ENG-DAG: state {{[0-9]+}} wire 8 0 0 0 0 "tb.big"
// ENG-DAG: state {{[0-9]+}} wire 8 0 0 0 0 "tb.pick"
// ENG-DAG: state {{[0-9]+}} reg 8 0 0 0 1 "tb.latched"
// ENG-DAG: state {{[0-9]+}} reg 8 0 0 0 1 "tb.partial"
// ENG-DAG: state {{[0-9]+}} reg 8 0 0 0 1 "tb.stale"
// ENG-DAG: state {{[0-9]+}} reg 8 0 0 0 1 "tb.shown"

// CHECK-DAG: reg [8:0] sum;
// CHECK-DAG: reg [7:0] big;
// CHECK-DAG: reg [7:0] pick;
// CHECK: always @* begin
// CHECK-NEXT: sum = {{.*}}, a} + {{.*}}, b}};
// CHECK-NEXT: end
// CHECK-NEXT: always @* begin
// CHECK-NEXT: if ({{.*}}a > b{{.*}}) begin
// CHECK-NEXT: big = a;
// CHECK-NEXT: end else begin
// CHECK-NEXT: big = b;
// CHECK: always @* begin
// CHECK-NEXT: case (sel)
// CHECK: default: begin
// CHECK-NOT: __prev_sel
// CHECK-NOT: sum = __sa_wdata
// CHECK-NOT: big = __sa_wdata
// CHECK-NOT: pick = __sa_wdata
// CHECK: latched = __sa_wdata
// CHECK: partial = __sa_wdata
// CHECK: stale = __sa_wdata
// CHECK: shown = __sa_wdata
// CHECK: __fire_1 = __x_inits_pending ? !__init_pending : (__any_a || __any_b);
// CHECK-NEXT: __fire_2 = __x_inits_pending ? !__init_pending : (__any_a || __any_b);
// CHECK-NEXT: __fire_3 = __x_inits_pending ? !__init_pending : (__any_c);
// CHECK-NEXT: __fire_4 = __x_inits_pending ? !__init_pending : (__any_a || __any_shown);
// CHECK-NEXT: __fire_5 = __pos_clock;
// CHECK-NOT: always @*

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [7:0] a = 3, b = 5, c = 0, sel = 0;
  reg [8:0] sum;
  reg [7:0] big, pick, latched, partial, stale, shown;
  // Kept: plain, if/else, case with a default.
  always @* sum = a + b;
  always @* if (a > b) big = a; else big = b;
  always @* case (sel)
    8'd0: pick = a;
    default: pick = b;
  endcase
  // A latch: no else.
  always @* if (a[0]) latched = b;
  // Bits written separately are never one whole write.
  always @* begin partial[3:0] = a[3:0]; partial[7:4] = b[3:0]; end
  // c is written with a blocking assignment below.
  always @* stale = c + 8'd1;
  always @* begin shown = a; $display("shown %0d", shown); end
  always @(posedge clock) begin
    a <= a + 8'd7;
    b <= b ^ 8'h3c;
    sel <= sel + 8'd1;
    c = c + 8'd1;
    $display("%0d %0d %0d %0d %0d %0d", sum, big, pick, latched, partial, stale);
  end
endmodule

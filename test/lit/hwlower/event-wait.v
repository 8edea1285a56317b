// An event control inside a procedural block is a resume point: the state
// before it stores the point in __resume_k and jumps to the end of the
// conjunct; the conjunct fires on that point's events and dispatches on
// __resume_k to the state after the wait; finishing the body stores 0.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: reg [1:0] __resume_[[K:[0-9]+]] = 2'd0;
// `x = 1` before the first wait only sets a starting value: it runs at
// power-on (hoistPowerOnPrefixes), and the resume point starts the body.
// CHECK: initial begin
// CHECK: x = 8'sb00000001;
// CHECK-NEXT: end
// CHECK: __fire_[[K]] = (__resume_[[K]] == 2'd1) ? (__pos_clock) : (__resume_[[K]] == 2'd2) ? (__neg_clock) : (__init);
// CHECK: if (__fire_[[K]]) __state = {{[0-9]+}}'d[[DISPATCH:[0-9]+]]; else __state = {{[0-9]+}}'d[[END:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[DISPATCH]]) begin
// CHECK-NEXT: case (__resume_[[K]])
// CHECK-NEXT: 2'd0: __state = {{[0-9]+}}'d[[START:[0-9]+]];
// CHECK-NEXT: 2'd1: __state = {{[0-9]+}}'d[[AFTER1:[0-9]+]];
// CHECK-NEXT: 2'd2: __state = {{[0-9]+}}'d[[AFTER2:[0-9]+]];
// CHECK-NEXT: default: __state = {{[0-9]+}}'d[[END]];
// CHECK: if (__task_r == 16'd0 && __state == [[START]]) begin
// CHECK-NEXT: __resume_[[K]] = 2'd1;
// CHECK-NEXT: __state = {{[0-9]+}}'d[[END]];
// CHECK: if (__task_r == 16'd0 && __state == [[AFTER1]]) begin
// CHECK-NEXT: x = 8'sb00000010;
// CHECK-NEXT: __resume_[[K]] = 2'd2;
// CHECK-NEXT: __state = {{[0-9]+}}'d[[END]];
// CHECK: if (__task_r == 16'd0 && __state == [[AFTER2]]) begin
// CHECK-NEXT: __task_r = 16'd{{[0-9]+}}; __state = {{[0-9]+}}'d[[TAIL:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[TAIL]]) begin
// CHECK-NEXT: __resume_[[K]] = 2'd0;
// CHECK-NEXT: __state = {{[0-9]+}}'d[[END]];

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] x = 0;
  initial begin
    x = 1;
    @(posedge clock);
    x = 2;
    @(negedge clock) $display("x=%0d", x);
  end
endmodule

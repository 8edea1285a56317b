// Hierarchy is flattened by Icarus's elaboration (scopes become name
// prefixes, ports become aliasing wires); functions become Verilog
// functions of the engine; generate blocks and parameters are resolved.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// ENG-DAG: "tb.u0.acc" "u0__acc"
// ENG-DAG: "tb.u1.acc" "u1__acc"
// A generate scope `g[1]` is no plain name: it is spelled in hex
// (injective-mangling.v).
// ENG-DAG: "tb.g[1].r" "_x675b315d___r"

// CHECK: function [7:0] u0__twice;
// CHECK-NEXT: input [7:0] u0__twice__v;
// CHECK: assign u0__clk = clock;
// CHECK: u0__acc = {u0__acc + u0__twice(u0__step)};

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module acc #(parameter STEP = 1) (input wire clk, output reg [7:0] acc);
  wire [7:0] step = STEP;
  function [7:0] twice(input [7:0] v);
    twice = v + v;
  endfunction
  always @(posedge clk) acc = acc + twice(step);
endmodule
module tb(input wire clock);
  wire [7:0] a0, a1;
  acc #(.STEP(1)) u0(.clk(clock), .acc(a0));
  acc #(.STEP(3)) u1(.clk(clock), .acc(a1));
  genvar i;
  generate for (i = 0; i < 2; i = i + 1) begin : g
    reg [3:0] r;
    always @(posedge clock) r = r + i;
  end endgenerate
endmodule

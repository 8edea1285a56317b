// A design that Icarus and the frontend accept but Verilator cannot build
// (a vector wider than Verilator's 65536-bit limit) fails in synergy-cc,
// at the statement it came from, not later in synergy-run; no engine file
// is written.
// RUN: rm -f %t.eng
// RUN: not synergy-cc %s -o %t.eng 2>&1 | FileCheck %s
// RUN: not test -e %t.eng

// CHECK: error: Verilator cannot build the engine of top module 'tb' (line {{[0-9]+}} of the emitted module): Unsupported: Width of number exceeds implementation limit: 70001'd0
// CHECK-NEXT: verilator-rejects-engine.v:[[@LINE+5]]: error: Verilator cannot build the engine from this statement: Unsupported: Width of number exceeds implementation limit: 70001'sb00000{{0+}}...{{ ?$}}
// CHECK-NEXT: verilator-rejects-engine.v:[[@LINE+7]]: error: Verilator cannot build the engine from this statement: Unsupported: Width of number exceeds implementation limit: 70001'b00000{{0+}}...{{ ?$}}
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [70000:0] big = 1;
  integer n = 0;
  always @(posedge clock) begin
    big = big + 1;
    n = n + 1;
    if (n == 2) $finish;
  end
endmodule

// A syntax error is Icarus's own diagnostic, with file:line, and a failure.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s
// RUN: not test -e %t.eng

// CHECK: syntax-error.v:[[@LINE+3]]: syntax error
module tb(input wire clock);
  reg [3:0] x
  always @(posedge clock) x = x + 1;
endmodule

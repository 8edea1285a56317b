// A delay inside the clocked core is refused with its location, and no
// engine file is written.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s
// RUN: not test -e %t.eng

// CHECK: error: unsupported: delay (#3) inside the clocked core at {{.*}}unsupported-delay.v:[[@LINE+5]]
module tb(input wire clock);
  reg [3:0] x;
  always @(posedge clock) begin
    x = 1;
    #3 x = 2;
  end
endmodule

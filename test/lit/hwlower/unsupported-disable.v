// A disable is a forward jump inside its own process: disabling a block of
// another process, or a task, is refused.
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s

module tb(input wire clock);
  reg [3:0] x;
  always @(posedge clock) begin : counter
    x = x + 1;
  end
  always @(negedge clock) begin
    // CHECK: error: unsupported: disable of a block that does not enclose it at {{.*}}unsupported-disable.v:[[@LINE+1]]
    if (x == 3) disable counter;
  end
endmodule

// An unbounded loop cannot finish within a tick.
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s

// CHECK: error: unsupported: unbounded loop (forever) at {{.*}}unsupported-forever.v:[[@LINE+4]]
module tb(input wire clock);
  reg [3:0] x;
  always @(posedge clock) begin
    forever x = x + 1;
  end
endmodule

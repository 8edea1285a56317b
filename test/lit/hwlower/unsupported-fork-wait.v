// Running the branches of a fork/join one after the other is not a valid
// schedule once a branch waits for an event.
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s

module tb(input wire clock);
  reg [3:0] x, y;
  initial fork
    // CHECK: error: unsupported: event control inside fork/join at {{.*}}unsupported-fork-wait.v:[[@LINE-1]]
    @(posedge clock) x = 1;
    y = 2;
  join
endmodule

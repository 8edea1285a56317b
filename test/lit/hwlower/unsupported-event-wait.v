// What still cannot wait: a forever loop whose body may skip its event
// control, and an always block that may not wait.
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s

module tb(input wire clock);
  reg [3:0] x, y;
  initial forever begin
    // CHECK: error: unsupported: unbounded loop (forever) at {{.*}}unsupported-event-wait.v:[[@LINE-1]]
    if (x == 0) @(posedge clock);
    x = x + 1;
  end
  // CHECK: error: unsupported: always block without an event control at {{.*}}unsupported-event-wait.v:[[@LINE+1]]
  always begin
    if (y == 0) @(posedge clock);
    y = y + 1;
  end
endmodule

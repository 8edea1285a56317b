// A test bench that stops itself with a delay is refused: the runtime
// drives time by ticks, and the core must finish within one tick.
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s

// CHECK: error: unsupported: delay (#20) inside the clocked core at {{.*}}unsupported-initial-delay.v:[[@LINE+5]]
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  initial begin
    #20 $finish;
  end
endmodule

// recognizeClockGenerator: a half period beyond what the runtime accepts
// (kMaxHalfPeriod, so that $time = tick * halfPeriod cannot wrap) is
// refused with its location, and no engine file is written; the largest
// accepted one reaches the engine file unchanged.
// RUN: rm -f %t.eng %t-max.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s
// RUN: not test -e %t.eng
// RUN: sed 's/#4294967296 /#4294967295 /' %s > %t-max.v
// RUN: synergy-hwc %t-max.v -o %t-max.eng
// RUN: FileCheck %s --check-prefix=MAX < %t-max.eng

// CHECK: error: unsupported: clock half period #4294967296 (at most #4294967295) at {{.*}}unsupported-clock-period.v:[[@LINE+5]]
// MAX: clock {{[0-9]+}} 4294967295{{$}}
module tb;
  reg clk;
  initial clk = 0;
  always #4294967296 clk = ~clk;
  reg [3:0] n = 0;
  always @(posedge clk) n <= n + 1;
endmodule

// synergy-hwc passes -I, -D and -top to Icarus: the include file and the
// define shape the design, and -top picks the test bench among two roots.
// RUN: synergy-hwc -I %S/Inputs -DSTEP=5 -top bench %s -o %t.eng
// RUN: FileCheck %s < %t.eng
// RUN: not synergy-hwc --bogus %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: top "bench"
// CHECK: state {{[0-9]+}} reg 12 0 0 0 1 "bench.n" "n"
// CHECK: n = {n + 12'b000000000101};
// CHECK-NOT: other
// BAD: synergy-hwc: error: unknown option '--bogus'
`include "width.vh"
module bench(input wire clock);
  reg [`COUNTER_WIDTH-1:0] n;
  always @(posedge clock) n = n + `STEP;
endmodule
module other(input wire clock);
  reg [3:0] m;
  always @(posedge clock) m = m + 1;
endmodule

// Constructs the IR has no place for are named as the source writes them,
// never by Icarus's enum values, each with its file:line, and no engine
// file is written.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// RUN: not test -e %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | not grep -E "(kind|type) [0-9]"

module tb(input wire clock);
  real r = 1.5;
  reg [7:0] x;
  wire y, e;
  // CHECK-DAG: error: unsupported: bufif0 gate at {{.*}}unsupported-named-constructs.v:[[@LINE+1]]
  bufif0 g(y, x[0], e);
  // Continuous logic works on bit vectors: a real operand is refused, never
  // compared as its bits.
  // CHECK-DAG: error: unsupported: real value in continuous logic at {{.*}}unsupported-named-constructs.v:[[@LINE+1]]
  wire big = r > 1.0;
endmodule

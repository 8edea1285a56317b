// Constructs the IR has no place for are named as the source writes them,
// never by Icarus's enum values, each with its file:line.
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// CHECK-NOT: kind {{[0-9]}}
// CHECK-NOT: type {{[0-9]}}

module tb(input wire clock);
  real r = 1.5;
  reg [7:0] x;
  wire y, e;
  // CHECK-DAG: error: unsupported: bufif0 gate at {{.*}}unsupported-named-constructs.v:[[@LINE+1]]
  bufif0 g(y, x[0], e);
  always @(posedge clock)
    // CHECK-DAG: error: unsupported: case statement on a real value at {{.*}}unsupported-named-constructs.v:[[@LINE+1]]
    case (r)
      1.5: x = 1;
      default: x = 2;
    endcase
endmodule

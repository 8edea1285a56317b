// Hardware has no call stack: a recursive function is refused, with its
// name and the line of the recursive call, unless Icarus already evaluated
// it in a constant expression (the localparam below is accepted). No engine
// file is written.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// RUN: not test -e %t.eng

module tb(input wire clock);
  function automatic integer fact(input integer n);
    // CHECK: error: unsupported: recursive function 'fact' outside a constant expression at {{.*}}unsupported-recursive-function.v:[[@LINE+1]]
    fact = n <= 1 ? 1 : n * fact(n - 1);
  endfunction
  localparam F5 = fact(5);
  integer k = 3;
  always @(posedge clock) $display("%0d %0d", F5, fact(k));
endmodule

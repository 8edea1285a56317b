// Hardware has no call stack: a call of a recursive function whose
// arguments are not constant is refused, with the function's name and the
// call's line. Constant calls are accepted (Icarus evaluates the localparam,
// synergy-hwc the call with literal arguments), and the call inside the
// function's own body is not reported. No engine file is written.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// RUN: not test -e %t.eng

module tb(input wire clock);
  function automatic integer fact(input integer n);
    fact = n <= 1 ? 1 : n * fact(n - 1);
  endfunction
  localparam F5 = fact(5);
  integer k = 3;
  // CHECK: error: unsupported: call of recursive function 'fact' that cannot be evaluated at compile time (non-constant arguments, or more than integer arithmetic) at {{.*}}unsupported-recursive-function.v:[[@LINE+1]]
  always @(posedge clock) $display("%0d %0d %0d", F5, fact(4), fact(k));
endmodule

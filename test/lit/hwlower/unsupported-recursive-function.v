// A call of a recursive function whose arguments are not constant runs on
// the engine (test/verilog/recursive_*.v) when the function is automatic and
// the call is made from a process. Otherwise it is refused, with the
// function's name, the reason and the call's line: a static function (its
// variables are shared by every activation, so no stack gives vvp's
// results), or a call made inside another function (an emitted function has
// no state machine to recurse in). Constant calls are accepted (Icarus
// evaluates the localparam, synergy-hwc the call with literal arguments), and
// the calls inside the functions' own bodies are not reported. No engine
// file is written.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// RUN: not test -e %t.eng

module tb(input wire clock);
  function integer fact(input integer n);
    fact = n <= 1 ? 1 : n * fact(n - 1);
  endfunction
  function automatic integer afact(input integer n);
    afact = n <= 1 ? 1 : n * afact(n - 1);
  endfunction
  function integer twice(input integer n);
    // CHECK-DAG: error: unsupported: call of recursive function 'afact' that cannot be evaluated at compile time (non-constant arguments, or more than integer arithmetic) and cannot run on the engine (made inside another function) at {{.*}}unsupported-recursive-function.v:[[@LINE+1]]
    twice = 2 * afact(n);
  endfunction
  localparam F5 = fact(5);
  integer k = 3;
  // CHECK-DAG: error: unsupported: call of recursive function 'fact' that cannot be evaluated at compile time (non-constant arguments, or more than integer arithmetic) and cannot run on the engine (not automatic) at {{.*}}unsupported-recursive-function.v:[[@LINE+1]]
  always @(posedge clock) $display("%0d %0d %0d %0d %0d", F5, fact(4), fact(k), afact(k), twice(k));
endmodule

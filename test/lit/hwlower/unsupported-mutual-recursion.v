// Functions that call each other are recursive too: a call that cannot be
// evaluated at compile time is refused, naming the function it calls and
// the call's line, and no engine file is written. (The calls inside the
// two bodies are not reported.)
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// RUN: not test -e %t.eng

module tb(input wire clock);
  function automatic integer even(input integer n);
    even = n == 0 ? 1 : odd(n - 1);
  endfunction
  function automatic integer odd(input integer n);
    odd = n == 0 ? 0 : even(n - 1);
  endfunction
  integer k = 3;
  // CHECK: error: unsupported: call of recursive function 'odd' that cannot be evaluated at compile time {{.*}} and cannot run on the engine (recursive through another function) at {{.*}}unsupported-mutual-recursion.v:[[@LINE+1]]
  always @(posedge clock) $display("%0d", odd(k));
endmodule

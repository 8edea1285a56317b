// Recursion the engine's stacks cannot hold is refused by name, and no
// engine file is written: a local array in a recursive function (a frame
// holds scalars), a recursive task that waits (its activations would be
// suspended across ticks), and a recursive call in a loop condition (the
// condition is re-evaluated where no statements can be hoisted).
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --check-prefix=ARRAY --implicit-check-not=unsupported:
// RUN: not test -e %t.eng
// RUN: not synergy-hwc -DREADER %s -o %t.eng 2>&1 | FileCheck %s --check-prefix=READER --implicit-check-not=unsupported:
// RUN: not test -e %t.eng

module tb(input wire clock);
  function automatic integer f(input integer n);
    // ARRAY: error: unsupported: array 'tb.f.a' in recursive routine 'f' at {{.*}}unsupported-recursion-shapes.v:[[@LINE+1]]
    integer a [0:3];
    begin
      a[n % 4] = n;
      f = n == 0 ? 0 : a[n % 4] + f(n - 1);
    end
  endfunction
  integer k = 3;
  always @(posedge clock) $display("%0d", f(k));
`ifdef READER
  task automatic w(input integer n);
    if (n > 0) begin
      @(posedge clock);
      w(n - 1);
    end
  endtask
  // READER: error: unsupported: recursive task 'w' that waits at {{.*}}unsupported-recursion-shapes.v:[[@LINE+1]]
  initial w(3);
  // READER: error: unsupported: call of a recursive function in a loop condition at {{.*}}unsupported-recursion-shapes.v:[[@LINE+1]]
  always @(posedge clock) while (f(k) > 3) k = k - 1;
`endif
endmodule

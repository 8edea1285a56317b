// A task that calls itself would be inlined without end; it is refused with
// its name and the line of the recursive call, and no engine file is written.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// RUN: not test -e %t.eng

module tb(input wire clock);
  task automatic countdown(input integer n);
    if (n > 0) begin
      $display("%0d", n);
      // CHECK: error: unsupported: recursive task 'countdown' at {{.*}}unsupported-recursive-task.v:[[@LINE+1]]
      countdown(n - 1);
    end
  endtask
  always @(posedge clock) countdown(3);
endmodule

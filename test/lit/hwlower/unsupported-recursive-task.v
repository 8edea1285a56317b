// A recursive `task automatic` runs with a stack of frames
// (test/verilog/recursive_tasks.v). A static task that calls itself shares
// one set of variables between its activations, and tasks that call each
// other recursively are not given a stack: both are refused with the task's
// name, the reason and the line of the recursive call, and no engine file
// is written.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// RUN: not test -e %t.eng

module tb(input wire clock);
  task countdown(input integer n);
    if (n > 0) begin
      $display("%0d", n);
      // CHECK: error: unsupported: recursive task 'countdown' that is not automatic at {{.*}}unsupported-recursive-task.v:[[@LINE+1]]
      countdown(n - 1);
    end
  endtask
  task automatic ping(input integer n);
    if (n > 0) pong(n - 1);
  endtask
  task automatic pong(input integer n);
    // CHECK: error: unsupported: recursive task 'ping' called through another task at {{.*}}unsupported-recursive-task.v:[[@LINE+1]]
    if (n > 0) ping(n - 1);
  endtask
  always @(posedge clock) begin
    countdown(3);
    ping(4);
  end
endmodule

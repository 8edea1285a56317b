// An automatic task is inlined with one copy of its variables. That copy is
// shared by calls that overlap in time, which happens when the task waits
// and two processes call it: refused with the task's name, and no engine
// file is written. One process calling it is accepted.
// RUN: rm -f %t.eng
// RUN: not synergy-hwc %s -o %t.eng 2>&1 | FileCheck %s --implicit-check-not=unsupported:
// RUN: not test -e %t.eng

module tb(input wire clock);
  reg [7:0] a, b;
  task automatic settle(output [7:0] v);
    reg [7:0] t;
    begin
      t = 1;
      @(posedge clock) t = t + 1;
      v = t;
    end
  endtask
  always @(posedge clock) settle(a);
  // CHECK: error: unsupported: automatic task 'settle' that waits, called from more than one process at {{.*}}unsupported-automatic-task-waits.v:[[@LINE+1]]
  always @(negedge clock) settle(b);
endmodule

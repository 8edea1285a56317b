// A recursive call past the depth limit (64 nested calls below the outermost
// one) stops the run with an error naming the function, the call's file:line
// and the limit, and exit status 1 (as any task the runtime cannot service),
// on both engines: the frame is never pushed and nothing after the call runs.
// A call exactly at the limit (64 nested calls) runs to the end first.
// REQUIRES: iverilog
// RUN: %synergy-cc %s -o %t.eng
// RUN: sh -c '%synergy-run --engine software %t.eng; echo "exit=$?"' > %t.software 2>&1
// RUN: FileCheck %s < %t.software
// RUN: sh -c '%synergy-run --engine compiled %t.eng; echo "exit=$?"' > %t.compiled 2>&1
// RUN: FileCheck %s < %t.compiled
// CHECK: depth(64) = 64
// CHECK-NEXT: {{^}}{{.*}}engine-recursion-depth.v:[[@LINE+6]]: error: recursion of 'depth' deeper than 64 nested calls (the engine's limit)
// CHECK-NEXT: exit=1
// CHECK-NOT: {{.}}
module tb;
  integer n, entered;
  function automatic integer depth(input integer k);
    depth = k == 0 ? 0 : 1 + depth(k - 1);
  endfunction
  initial begin
    n = 64;
    $display("depth(%0d) = %0d", n, depth(n));
    n = n + 1;
    $display("depth(%0d) = %0d", n, depth(n));
    $display("not reached");
    $finish;
  end
endmodule

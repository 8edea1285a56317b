// Recursion inside `task automatic`, at a depth read from registers: each
// level prints with $display (a trap in the middle of the recursion), on the
// way down and on the way up, and an output argument carries a result back
// through every level. A module-level counter that the levels increment is
// not part of a frame, so it is not undone when they return.
module tb;
  integer calls = 0;

  task automatic countdown(input integer n, input [7:0] tag);
    integer twice;
    begin
      twice = 2 * n;
      calls = calls + 1;
      $display("%c down %0d (%0d)", tag, n, twice);
      if (n > 0) countdown(n - 1, tag + 8'd1);
      $display("%c up %0d (%0d)", tag, n, twice);
    end
  endtask

  // Sum of 1..n through an output argument, and the tree of calls of a
  // binary recursion.
  task automatic sum(input integer n, output integer s);
    integer rest;
    begin
      if (n == 0) s = 0;
      else begin
        sum(n - 1, rest);
        s = rest + n;
        $display("sum(%0d) = %0d", n, s);
      end
    end
  endtask

  task automatic tree(input integer n, input integer at);
    if (n > 0) begin
      tree(n - 1, 2 * at);
      $display("node %0d at depth %0d", at, n);
      tree(n - 1, 2 * at + 1);
    end
  endtask

  reg [3:0] depth;
  integer total;
  initial begin
    depth = 4'd3;
    countdown(depth, "a");
    depth = depth + 4'd2;
    countdown(depth, "k");
    sum(depth + 1, total);
    $display("total %0d, calls %0d", total, calls);
    tree(3, 1);
    $finish;
  end
endmodule

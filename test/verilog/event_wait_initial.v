// An initial block that waits for clock edges between its statements:
// single waits, a wait with a statement, repeat and for loops of waits, a
// wait on the other edge, and a while loop that waits until a counter
// advanced by another block reaches a value.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0, i;
  reg [7:0] acc = 0;
  always @(posedge clock) n <= n + 1;
  initial begin
    $display("start n=%0d", n);
    @(posedge clock);
    $display("first edge n=%0d at %0t", n, $time);
    @(posedge clock) acc = acc + 8'd3;
    $display("second edge n=%0d acc=%0d", n, acc);
    repeat (3) @(posedge clock);
    $display("after repeat n=%0d at %0t", n, $time);
    for (i = 0; i < 3; i = i + 1) begin
      @(negedge clock);
      acc = acc * 8'd2 + i;
      $display("negedge %0d n=%0d acc=%0d at %0t", i, n, acc, $time);
    end
    while (n < 20) @(posedge clock);
    $display("n reached %0d at %0t", n, $time);
    @(posedge clock);
    $finish;
  end
endmodule

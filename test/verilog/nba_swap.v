// Two registers swap every cycle through non-blocking assignments.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [15:0] x = 16'h1234, y = 16'hbeef;
  integer n = 0;
  always @(posedge clock) begin
    x <= y;
    y <= x;
    n <= n + 1;
  end
  always @(negedge clock) begin
    $display("n=%0d x=%h y=%h", n, x, y);
    if (n == 5) $finish;
  end
endmodule

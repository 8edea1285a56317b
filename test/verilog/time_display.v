// $time in expressions, as a %t and %d argument, and stored into a variable.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [63:0] stamp;
  integer n = 0;
  always @(posedge clock) begin
    stamp = $time;
    $display("%t|%0t|%d|%0d", $time, $time, $time, stamp * 2);
    n = n + 1;
    if (n == 3) $finish;
  end
  always @(negedge clock) $display("negedge at %0t", $time);
endmodule

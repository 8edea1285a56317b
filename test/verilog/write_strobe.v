// $strobe prints at the end of the tick, after non-blocking updates; $display
// prints at once, before them.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] q = 0;
  integer n = 0;
  always @(posedge clock) begin
    q <= q + 5;
    $display("display q=%0d", q);
    $strobe("strobe q=%0d", q);
    $write("write ");
    $write("q=%0d\n", q);
    n = n + 1;
    if (n == 4) $finish;
  end
endmodule

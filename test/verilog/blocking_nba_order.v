// Blocking assignments take effect at once; non-blocking ones at the end of
// the tick, so a read after `<=` in the same block sees the old value.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer cycle = 0;
  reg [7:0] a = 1, b = 2, c = 0;
  always @(posedge clock) begin
    a = a + 1;
    b <= a + b;
    c = b;
    $display("cycle %0d: a=%0d b=%0d c=%0d", cycle, a, b, c);
    cycle = cycle + 1;
    if (cycle == 6) $finish;
  end
endmodule

// Blocks on both edges of one clock interleave in time order.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer rising = 0, falling = 0;
  always @(posedge clock) begin
    rising = rising + 1;
    $display("%0t posedge rising=%0d falling=%0d", $time, rising, falling);
  end
  always @(negedge clock) begin
    falling = falling + 1;
    $display("%0t negedge rising=%0d falling=%0d", $time, rising, falling);
    if (falling == 4) $finish;
  end
endmodule

// A while loop (Collatz steps) printing each step inside one tick.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer x, start = 6, steps;
  always @(posedge clock) begin
    x = start;
    steps = 0;
    while (x != 1) begin
      if (x % 2 == 0) x = x / 2;
      else x = 3 * x + 1;
      steps = steps + 1;
      $write("%0d ", x);
    end
    $display("| start %0d took %0d steps", start, steps);
    start = start + 1;
    if (start == 10) $finish;
  end
endmodule

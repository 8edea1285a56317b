// $random with an explicit seed variable, and $random's own sequence.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer seed = 42, n = 0, r;
  always @(posedge clock) begin
    r = $random(seed);
    $display("seeded %0d seed %0d free %0d mod %0d", r, seed, $random, r % 10);
    n = n + 1;
    if (n == 6) $finish;
  end
endmodule

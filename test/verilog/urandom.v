// $urandom without and with a seed.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer seed = 7, n = 0;
  reg [31:0] u;
  always @(posedge clock) begin
    u = $urandom;
    $display("urandom %0d seeded %0d", u, $urandom(seed));
    n = n + 1;
    if (n == 5) $finish;
  end
endmodule

// Unsigned and signed division and modulo by changing divisors.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [31:0] num = 1000003;
  integer d = 1, sn = -977;
  always @(posedge clock) begin
    $display("%0d / %0d = %0d r %0d; %0d / %0d = %0d r %0d", num, d, num / d, num % d, sn, d, sn / d, sn % d);
    d = d * 3 + 1;
    if (d > 500) $finish;
  end
endmodule

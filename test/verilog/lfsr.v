// A 16-bit Fibonacci LFSR, printed every tick.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [15:0] lfsr = 16'hace1;
  wire feedback = lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10];
  integer n = 0;
  always @(posedge clock) begin
    lfsr <= {lfsr[14:0], feedback};
    $display("%h", lfsr);
    n = n + 1;
    if (n == 12) $finish;
  end
endmodule

// Arithmetic on 128-bit values crosses 64-bit word boundaries.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [127:0] a = 128'hffff_ffff_ffff_ffff_0000_0000_0000_0001;
  reg [127:0] b = 128'h1;
  integer n = 0;
  always @(posedge clock) begin
    $display("a=%h b=%h", a, b);
    $display("  a+b=%h a*3=%0d", a + b, a * 3);
    a = a + (a >> 7);
    b = b << 37 | b;
    n = n + 1;
    if (n == 4) $finish;
  end
endmodule

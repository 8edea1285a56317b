// Signed arithmetic: negative products, division truncating toward zero,
// modulo signs, and arithmetic shifts.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg signed [15:0] a = -100, b = 7;
  reg signed [31:0] p;
  integer n = 0;
  always @(posedge clock) begin
    p = a * b;
    $display("a=%0d b=%0d a*b=%0d a/b=%0d a%%b=%0d a>>>2=%0d a>>2=%0d", a, b, p, a / b, a % b, a >>> 2, a >> 2);
    $display("  a<b=%b a<0=%b -a=%0d |a|=%0d", a < b, a < 0, -a, (a < 0) ? -a : a);
    a = a + 37;
    b = b - 3;
    n = n + 1;
    if (n == 5) $finish;
  end
endmodule

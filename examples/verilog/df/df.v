// Double-precision floating point in plain bit logic: an IEEE-754 binary64
// multiplier (normal operands, round to nearest even; no subnormals,
// infinities or NaNs) used for a geometric sequence x <- x * r, one
// multiplication per tick, printed as raw bits.
// SAVE-AT-TICK: 20 (the split run in test/verilog/run_differential.py --save-restart)
module dmul (input wire [63:0] a, input wire [63:0] b, output reg [63:0] product);
  reg sign;
  reg [12:0] exponent;
  reg [105:0] full;
  reg [52:0] mantissa;
  reg round_bit, sticky;
  always @* begin
    sign = a[63] ^ b[63];
    full = {1'b1, a[51:0]} * {1'b1, b[51:0]};
    if (full[105]) begin
      mantissa = full[105:53];
      round_bit = full[52];
      sticky = |full[51:0];
      exponent = a[62:52] + b[62:52] - 13'd1022;
    end else begin
      mantissa = full[104:52];
      round_bit = full[51];
      sticky = |full[50:0];
      exponent = a[62:52] + b[62:52] - 13'd1023;
    end
    if (round_bit && (sticky || mantissa[0])) begin
      mantissa = mantissa + 1;
      if (mantissa == 0) begin
        mantissa = 53'h10000000000000;
        exponent = exponent + 1;
      end
    end
    product = {sign, exponent[10:0], mantissa[51:0]};
  end
endmodule

module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [63:0] x = 64'h3ff199999999999a;      // 1.1
  reg [63:0] ratio = 64'hbff5eb851eb851ec;  // -1.37
  wire [63:0] next_x;
  dmul multiply (.a(x), .b(ratio), .product(next_x));
  integer n = 0;
  always @(posedge clock) begin
    $display("x[%0d] = %h (exponent %0d)", n, x, x[62:52] - 1023);
    x <= next_x;
    n = n + 1;
    if (n == 24) $finish;
  end
endmodule

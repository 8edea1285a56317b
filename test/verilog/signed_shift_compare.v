// Mixed signed/unsigned comparisons and sign extension across widths.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg signed [7:0] s = -8'sd3;
  reg [7:0] u = 8'd250;
  reg signed [15:0] wide;
  integer n = 0;
  always @(posedge clock) begin
    wide = s;
    $display("s=%0d u=%0d wide=%0d wide=%h s<u=%b $signed(u)=%0d", s, u, wide, wide, s < u, $signed(u));
    $display("  s+1=%0d {s}>>>1=%0d unsigned(s)=%0d", s + 8'sd1, s >>> 1, $unsigned(s));
    s = s - 8'sd40;
    u = u + 8'd3;
    n = n + 1;
    if (n == 4) $finish;
  end
endmodule

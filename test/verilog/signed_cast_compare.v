// $signed() inside comparisons and arithmetic (not only in a display):
// comparing as signed must order negative values first.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [31:0] a = 32'hfffffff9, b = 32'd3;
  reg [15:0] raw = 16'hff00;
  integer diff, n = 0;
  always @(posedge clock) begin
    diff = $signed(raw) - 5;
    $display("signed a<b=%0d unsigned a<b=%0d diff=%0d sel=%0d", $signed(a) < $signed(b), a < b, diff,
             $signed(a) < $signed(b) ? 1 : 0);
    a = a + 4;
    raw = raw + 16'h0080;
    n = n + 1;
    if (n == 4) $finish;
  end
endmodule

// Continuous assigns and output ports driving the words of a net array:
// each word reads its own driver, and an undriven word is never mixed in.
module doubler(input wire [7:0] a, output wire [7:0] y);
  assign y = a + a;
endmodule
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] r = 3;
  wire [7:0] x [0:1];
  assign x[0] = 5;
  assign x[1] = r + 7;
  wire [7:0] d [2:4];
  genvar k;
  generate for (k = 2; k <= 4; k = k + 1) begin : g
    doubler u(.a(r + k), .y(d[k]));
  end endgenerate
  integer i;
  integer n = 0;
  always @(posedge clock) begin
    $display("x0=%0d x1=%0d d2=%0d d3=%0d d4=%0d", x[0], x[1], d[2], d[3], d[4]);
    for (i = 2; i <= 4; i = i + 1) $display("  d[%0d]=%0d", i, d[i]);
    r <= r + 40;
    n = n + 1;
    if (n == 4) $finish;
  end
endmodule

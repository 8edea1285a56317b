// A chain of continuous assigns (with a conditional and a concatenation)
// settles before the clocked block reads it.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] r = 8'h0f;
  wire [7:0] inverted = ~r;
  wire [7:0] rotated = {inverted[0], inverted[7:1]};
  wire [7:0] picked = r[0] ? rotated : inverted;
  wire parity = ^picked;
  integer n = 0;
  always @(posedge clock) begin
    $display("r=%b inv=%b rot=%b picked=%h parity=%b", r, inverted, rotated, picked, parity);
    r <= r + 8'd37;
    n = n + 1;
    if (n == 5) $finish;
  end
endmodule

// %d of a real, constant or variable: vvp prints the value rounded half away
// from zero with all its integer digits and no padding unless a width is
// given; a real printed without a format is C's %#g.
// SAVE-AT-TICK: 2
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  real r = -2.5;
  integer n = 0;
  always @(posedge clock) begin
    $display("[%d] [%0d] [%5d] [%-6d] [%+d] [%d] [%d]", 2.5, 3.7, r, r, r * -1, r * 1e12, -0.4);
    $display(r, " ", 2.5, " ", r * 1e-9);
    r = r * -3.25;
    n = n + 1;
    if (n == 5) $finish;
  end
endmodule

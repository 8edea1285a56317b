// vvp starts an always block that waits for value changes only before the
// declaration initializers and initial blocks run, so it sees their x->value
// changes at time 0 and runs once then, also when the value is 0 (the
// two-state engine's power-on value); a net computed from such a variable
// changes too. A block with an edge in its guard starts after them and sees
// nothing, and a variable that nothing initializes stays x, so a block
// waiting on it alone does not run. Each display also reads a variable that
// a later initializer sets, so the block must run after all of them.
module tb;
  integer c = 0;
  integer d = 5;
  reg [3:0] e;
  reg g = 0;
  reg f = 1;
  reg [7:0] h;
  initial h = 0;
  wire [7:0] w = h + 8'd3;
  reg [7:0] later = 8'd42;
  reg clock = 0;
  always #1 clock = ~clock;
  always @(c) $display("%0t c=%0d later=%0d", $time, c, later);
  always @(d or c) $display("%0t d=%0d", $time, d);
  always @(e) $display("%0t e=%0d", $time, e);
  always @(g) $display("%0t g=%0d", $time, g);
  always @(w) $display("%0t w=%0d", $time, w);
  always @(g or posedge f) $display("%0t g or posedge f", $time);
  always @(negedge g) $display("%0t negedge g", $time);
  always @(posedge clock) begin
    c <= c + 1;
    if (c == 2) g <= 1;
    if (c == 3) e <= 4'd9;
    if (c == 4) h <= 8'd7;
    if (c == 5) $finish;
  end
endmodule

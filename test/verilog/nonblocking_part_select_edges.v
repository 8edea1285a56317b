// A non-blocking part-select at a run-time offset writes only its bits
// inside the vector (IEEE 1364-2005 5.2.1), also when it straddles either
// edge: signed and unsigned offsets, `+:` and `-:`, two parts of one vector
// in the same tick (each keeps the other's bits), a bit-select, and a part
// inside a concatenated target. (vvp 11 aborts on a memory word's part
// straddling its edge, so there is none here.)
// SAVE-AT-TICK: 7
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] x = 0, y = 0, b = 0;
  reg [11:0] z = 0;
  reg [3:0] c = 0;
  integer i = -6;
  reg [4:0] u = 0;
  always @(posedge clock) begin
    x <= 0; y <= 8'h81; b <= 0; z <= 0; c <= 0;
    x[i +: 5] <= 5'b10111;
    y[i -: 3] <= 3'b010;
    y[u +: 2] <= 2'b11;
    b[i] <= 1'b1;
    {c, z[u +: 6]} <= 10'b1001_110101;
    i = i + 1;
    u = u + 1;
    if (i > 12) $finish;
  end
  always @(negedge clock) $display("i=%0d u=%0d x=%b y=%b b=%b z=%b c=%b", i - 1, u - 1, x, y, b, z, c);
endmodule

// A blocking assignment to a concatenated target writes, for a piece that
// is a part-select at a run-time offset, only the bits of that piece inside
// its vector (IEEE 1364-2005 5.2.1), also when it straddles either edge:
// unsigned and signed offsets, `+:` and `-:`, a bit-select, two run-time
// pieces of one vector (each keeps the other's bits), a run-time piece next
// to a constant piece of the same vector, a memory word's part inside its
// word, and offsets read before the statement writes them.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [11:0] z;
  reg [3:0] c;
  reg [7:0] x, y;
  reg b;
  reg [7:0] m [0:3];
  reg [4:0] u = 0;
  integer i = -6;
  reg [3:0] k = 0;
  always @(posedge clock) begin
    z = 0; c = 0; x = 8'h81; y = 0; b = 0;
    m[1] = 8'h00;
    {c, z[u +: 6]} = 10'b1001_110101;
    {x[i -: 3], b, y[i +: 5]} = 9'b010_1_10111;
    {y[u +: 2], y[i +: 3]} = 5'b11_101;
    {x[7:6], x[u -: 2]} = 4'b01_11;
    {m[1][u[1:0] +: 3], c[1:0]} = 5'b111_10;
    {k, z[k +: 4]} = {k + 4'd1, 4'b1011};
    $display("u=%0d i=%0d k=%0d z=%b c=%b x=%b y=%b b=%b m1=%b", u, i, k, z, c, x, y, b, m[1]);
    i = i + 1;
    u = u + 1;
    if (i > 12) $finish;
  end
endmodule

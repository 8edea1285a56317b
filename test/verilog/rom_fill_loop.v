// A memory filled by a leading constant-bound loop from its loop variable
// alone becomes a ROM (test/lit/hwlower/fold-rom-loops.v); the loop variable
// is a design register too and must keep the value the loop leaves.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [31:0] header [0:19];
  reg signed [15:0] squares [-4:4];
  integer i, j;
  initial begin
    header[0] = 32'h01000000;
    for (i = 1; i < 19; i = i + 1) header[i] = 32'h11111111 * ((i - 1) % 15 + 1);
    header[19] = 0;
    for (j = -4; j <= 4; j = j + 1) squares[j] = j * j - 3;
    $display("i = %0d, j = %0d", i, j);
  end
  always @(posedge clock) begin
    $display("%0d: %h %0d", i, header[i - 19], squares[i - 23]);
    i = i + 1;
    if (i == 28) $finish;
  end
endmodule

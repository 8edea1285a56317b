// A tenant that runs long enough for other clients to act while it does:
// a 64-bit and a 100-bit accumulator, a small memory, one line every 500
// ticks. Any write into its state from outside changes its output.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [63:0] acc = 64'h0123456789abcdef;
  reg [99:0] wide = 100'h1;
  reg [7:0] mem [0:15];
  integer n = 0;
  integer i;
  initial for (i = 0; i < 16; i = i + 1) mem[i] = i * 7;
  always @(posedge clock) begin
    acc <= acc * 64'd6364136223846793005 + 64'd1442695040888963407;
    wide <= {wide[98:0], wide[99] ^ acc[0]};
    mem[n % 16] <= mem[n % 16] + acc[7:0];
    n = n + 1;
    if (n % 500 == 0) $display("%d %h %h %h", n, acc, wide, mem[3]);
    if (n == 3000) $finish;
  end
endmodule

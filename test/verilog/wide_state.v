// Variables and memory words wider than 64 bits cross the state-access port
// one 64-bit word at a time (the last one shorter): the split run saves
// them at tick 7 and restores them, and $display reads them.
// SAVE-AT-TICK: 7
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [129:0] wide = {2'b10, 64'h0123456789abcdef, 64'hfedcba9876543210};
  reg signed [71:0] swide = -72'sd5;
  reg [99:0] words [0:2];
  integer n = 0;
  initial begin
    words[0] = {36'h876543210, 64'h0f0f0f0f0f0f0f0f};
    words[1] = 100'd1;
    words[2] = ~100'd0;
  end
  always @(posedge clock) begin
    $display("%0d %h %0d %h %h %h", n, wide, swide, words[0], words[1], words[2]);
    wide = {wide[128:0], wide[129]} ^ {66'd0, 64'd0 + n};
    swide = swide * 3 + n;
    words[n % 3] = {words[n % 3][98:0], words[(n + 1) % 3][99]} + n;
    n = n + 1;
    if (n == 14) $finish;
  end
endmodule

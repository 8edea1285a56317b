// Memory NBAs in different arms of a case share one shadow in the engine;
// one after the case, which runs in the same tick as an arm, must still
// commit after it (the later NBA to the same element wins).
// SAVE-AT-TICK: 9
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] mem [0:7];
  integer n = 0, k;
  initial for (k = 0; k < 8; k = k + 1) mem[k] = k;
  always @(posedge clock) begin
    case (n % 3)
      0: mem[n % 8] <= mem[(n + 1) % 8] + 8'd10;
      1: mem[(n + 3) % 8] <= mem[n % 8] ^ 8'h5a;
      default: if (n[2]) mem[0] <= mem[7] - 8'd1;
    endcase
    if (n % 4 == 0) mem[n % 8] <= 8'hee;
    n = n + 1;
    $display("%0d: %h %h %h %h %h %h %h %h", n, mem[0], mem[1], mem[2], mem[3], mem[4], mem[5], mem[6], mem[7]);
    if (n == 20) $finish;
  end
endmodule

// A tenant that prints every tick: each open-loop run stops between two
// ticks with a reply full of $display traps, so the tenant sends its next
// request before it services them (hypervisor/RemoteEngine.cpp). Its
// output depends on every value it holds, so a request served out of turn,
// or a move into another program that loses a value or a tick, changes it.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [63:0] acc = 64'h0123456789abcdef;
  reg [99:0] wide = 100'h1;
  integer n = 0;
  always @(posedge clock) begin
    acc <= acc * 64'd6364136223846793005 + 64'd1442695040888963407;
    wide <= {wide[98:0], wide[99] ^ acc[0]};
    $display("%0d %h %h", n, acc, wide);
    n = n + 1;
    if (n == 40000) $finish;
  end
endmodule

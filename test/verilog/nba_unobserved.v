// Non-blocking assignments that nothing reads after them in the same tick
// (x, and w's declaration initializer before it) may be written at once;
// the others must still see the old value until the tick ends: y is read
// later in its own process, z by another process, p through the net p2,
// q's NBA runs in a loop, and r has a second NBA site.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [15:0] x = 16'h0001, y = 16'h0002, z = 16'h0003, p = 16'h0005, q = 0, r = 0, w = 7;
  wire [15:0] p2 = p * 2;
  reg [15:0] seen_y, seen_p2;
  integer n = 0, i;
  always @(posedge clock) begin
    $display("n=%0d x=%h y=%h z=%h p2=%h q=%h r=%h w=%h", n, x, y, z, p2, q, r, w);
    y <= y + x;
    x <= x * 3 + y;
    seen_y = y;
    z <= z + 1;
    p <= p + 3;
    seen_p2 = p2;
    for (i = 0; i < 3; i = i + 1) q <= q + i;
    r <= r + 1;
    if (n[0]) r <= r + 16'h100;
    w <= w + seen_y;
    n = n + 1;
    $display("  seen y=%h p2=%h", seen_y, seen_p2);
    if (n == 6) $finish;
  end
  always @(negedge clock) $display("  other z=%h", z);
endmodule

// $urandom_range with one and two bounds, swapped bounds, variable and
// narrow bounds, bounds with bit 31 set, inside expressions, and sharing
// the $urandom seed.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0;
  reg [7:0] lo = 8'd200, hi = 8'd20;
  reg signed [7:0] neg = -8'sd3;
  reg [3:0] narrow;
  reg [31:0] u;
  always @(posedge clock) begin
    $display("one %0d two %0d swapped %0d", $urandom_range(9), $urandom_range(100, 1000), $urandom_range(1000, 100));
    narrow = $urandom_range(hi, lo);
    u = $urandom_range(neg, 0) + n;
    $display("narrow %0d u %0d equal %0d zero %0d", narrow, u, $urandom_range(n, n), $urandom_range(0, 0));
    $display("top %0d %0d urandom %0d", $urandom_range(32'hffffffff, 0), $urandom_range(32'h80000005, 32'h80000001), $urandom);
    if ($urandom_range(3) == 2) $display("three at %0d", n);
    n = n + 1;
    lo = lo + 8'd37;
    if (n == 12) $finish;
  end
endmodule

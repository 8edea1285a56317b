// Two clocks derived from one (divide by 2 and by 4), each driving its own
// block; the derived edges happen in the same time step as the source edge.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg half = 0, quarter = 0;
  integer fast = 0, mid = 0, slow = 0;
  always @(posedge clock) begin
    half <= ~half;
    fast = fast + 1;
  end
  always @(posedge half) begin
    quarter <= ~quarter;
    mid = mid + 1;
    $display("half edge: fast=%0d mid=%0d", fast, mid);
  end
  always @(posedge quarter) begin
    slow = slow + 1;
    $display("quarter edge: mid=%0d slow=%0d", mid, slow);
    if (slow == 3) $finish;
  end
endmodule

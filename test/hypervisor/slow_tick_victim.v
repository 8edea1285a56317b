// A tenant whose ticks are slow and print nothing until the last: every
// tick steps a 64-bit generator 200000 times, and only after 4000 ticks does
// it print. Its whole run fits in one open-loop batch, the hypervisor's
// first chunks take seconds unless they are sized to the design, and only
// the run's progress reports (HvRunProgress) move the tenant's --timeline
// before the end.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [63:0] acc = 64'h0123456789abcdef;
  integer n = 0;
  integer i;
  always @(posedge clock) begin
    for (i = 0; i < 200000; i = i + 1)
      acc = acc * 64'd6364136223846793005 + i;
    n = n + 1;
    if (n == 4000) begin
      $display("%0d ticks: %h", n, acc);
      $finish;
    end
  end
endmodule

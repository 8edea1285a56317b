// A memory written with non-blocking assignments and read back later.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] mem [0:15];
  integer n = 0, i;
  always @(posedge clock) begin
    mem[n] <= n * n + 1;
    if (n > 0) $display("mem[%0d] = %0d", n - 1, mem[n - 1]);
    n = n + 1;
    if (n == 12) begin
      for (i = 0; i < 11; i = i + 3) $display("check mem[%0d] = %h", i, mem[i]);
      $finish;
    end
  end
endmodule

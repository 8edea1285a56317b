// A memory filled by a loop in an initial block, then summed over ticks
// with a variable index.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [15:0] table_ [0:7];
  integer i, idx = 0;
  reg [31:0] sum = 0;
  initial begin
    for (i = 0; i < 8; i = i + 1) table_[i] = 16'd1000 + i * 111;
    $display("initialised");
  end
  always @(posedge clock) begin
    sum = sum + table_[idx];
    $display("idx %0d value %0d sum %0d", idx, table_[idx], sum);
    idx = idx + 1;
    if (idx == 8) $finish;
  end
endmodule

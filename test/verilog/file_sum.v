// The streaming file sum of the Synergy paper (Fig. 2) in standard Verilog:
// each tick reads one 32-bit word; $feof, right after $fread in the same
// tick, decides whether to add it or to print the sum and finish.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd;
  reg [31:0] r = 0;
  reg [31:0] sum = 0;
  integer got;
  initial fd = $fopen("numbers.bin", "rb");
  always @(posedge clock) begin
    got = $fread(r, fd);
    if ($feof(fd)) begin
      $display("sum = %0d", sum);
      $finish;
    end else begin
      sum <= sum + r;
    end
  end
endmodule

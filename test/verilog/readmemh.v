// $readmemh with comments and @address records fills a memory.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] rom [0:15];
  integer i = 0, k;
  initial begin
    for (k = 0; k < 16; k = k + 1) rom[k] = 0;
    $readmemh("program.hex", rom);
  end
  always @(posedge clock) begin
    $display("rom[%0d] = %h", i, rom[i]);
    i = i + 1;
    if (i == 10) $finish;
  end
endmodule

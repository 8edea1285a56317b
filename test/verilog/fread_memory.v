// $fread into a whole memory in one call, then print it over ticks.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [31:0] words [0:7];
  integer fd, got, i = 0;
  initial begin
    fd = $fopen("numbers.bin", "rb");
    got = $fread(words, fd);
    $display("read %0d bytes", got);
  end
  always @(posedge clock) begin
    $display("words[%0d] = %0d", i, words[i]);
    i = i + 1;
    if (i == 8) $finish;
  end
endmodule

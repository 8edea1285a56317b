// $fread into a register until end of file, on a file whose length is not a
// multiple of the register size: the last read is partial.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, got;
  reg [31:0] word = 32'hffffffff;
  initial fd = $fopen("odd_length.bin", "rb");
  always @(posedge clock) begin
    got = $fread(word, fd);
    $display("got %0d word %h eof %0d", got, word, $feof(fd));
    if (got == 0) begin
      $fclose(fd);
      $finish;
    end
  end
endmodule

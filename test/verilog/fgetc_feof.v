// $fgetc one character per tick; $feof after the read decides the end.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c, letters = 0;
  initial fd = $fopen("text.txt", "r");
  always @(posedge clock) begin
    c = $fgetc(fd);
    if (c == -1) begin
      $display("\nletters=%0d eof=%0d", letters, $feof(fd));
      $finish;
    end else begin
      if ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z")) letters = letters + 1;
      $write("%c", c);
    end
  end
endmodule

// $fread into registers whose widths are not a multiple of 8 (5, 12, 20
// bits, in turn), on an 11-byte file: each element takes ceil(width / 8)
// bytes, filled from its most significant bit down, the last byte's low
// bits dropped; the last read gets 2 of the 20-bit register's 3 bytes and
// keeps its old low bits.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, got, turn = 0;
  reg [4:0] five = 5'h1f;
  reg [11:0] twelve = 12'hfff;
  reg [19:0] twenty = 20'hfffff;
  initial fd = $fopen("odd_length.bin", "rb");
  always @(posedge clock) begin
    if (turn % 3 == 0) begin
      got = $fread(five, fd);
      $display("five got %0d value %h eof %0d", got, five, $feof(fd));
    end else if (turn % 3 == 1) begin
      got = $fread(twelve, fd);
      $display("twelve got %0d value %h eof %0d", got, twelve, $feof(fd));
    end else begin
      got = $fread(twenty, fd);
      $display("twenty got %0d value %h eof %0d", got, twenty, $feof(fd));
    end
    turn = turn + 1;
    if (got == 0) begin
      $fclose(fd);
      $finish;
    end
  end
endmodule

// A tenant that reads a whole file through the hypervisor's read-ahead
// windows: $fgetc and a $fread into a 24-bit register in turn, $feof after
// every read, and a $ftell every 97 reads, which the tenant services itself
// and so ends each open-loop run part way through the file. Its output is a
// running hash of every byte and result it saw and the position of each
// $ftell, so a byte read twice or skipped, a wrong end-of-file or a stream
// left at another position than a solo run's changes it. The file's length
// leaves the last $fread short of its 3 bytes: the bits it does not fill
// keep their value.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c, got, pos, eof;
  integer n = 0;
  reg [23:0] triple;
  reg [31:0] sum = 0;
  initial fd = $fopen("text.txt", "r");
  always @(posedge clock) begin
    if (n % 2 == 0) begin
      c = $fgetc(fd);
      got = c;
      sum = sum * 31 + c;
    end else begin
      triple = 24'h5a5a5a;
      got = $fread(triple, fd);
      sum = sum * 17 + triple + got;
    end
    eof = $feof(fd);
    n = n + 1;
    if (n % 97 == 0) begin
      pos = $ftell(fd);
      $display("%0d: at %0d, sum %h, eof %0d", n, pos, sum, eof);
    end
    if (eof) begin
      $display("end after %0d reads: got %0d, triple %h, sum %h", n, got, triple, sum);
      $finish;
    end
  end
endmodule

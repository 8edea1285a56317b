// A tenant that reads its stdin (descriptor 32'h8000_0000), which the test
// feeds through a pipe in bursts: $fgetc one byte a tick; after a '#' a
// $fscanf of a number, after a '>' a $fgets of the rest of the line, and
// after a '<' an $ungetc of the byte read. Its output is a running hash of
// every byte and result it saw, so a byte read twice or skipped, or an end
// seen early, changes it. Reads the bytes a burst has delivered are served
// from the hypervisor's read-ahead windows; a read past them waits in the
// tenant for the next burst, as a solo run's read waits.
module tb;
  localparam STDIN = 32'h8000_0000;
  reg clock = 0;
  always #1 clock = ~clock;
  integer c, r, v;
  integer n = 0;
  reg [8*40:1] line;
  reg [31:0] sum = 0;
  always @(posedge clock) begin
    c = $fgetc(STDIN);
    n = n + 1;
    if (c == -1) begin
      $display("%0d reads, hash %h, eof %0d", n, sum, $feof(STDIN));
      $finish;
    end else if (c == "#") begin
      r = $fscanf(STDIN, "%d", v);
      sum = sum * 33 + v + r;
    end else if (c == ">") begin
      line = 0;
      r = $fgets(line, STDIN);
      sum = sum * 33 + line[32:1] + line[64:33] + r;
      $display("line %0d %h", n, line[64:1]);
    end else if (c == "<") begin
      r = $ungetc(c, STDIN);
      c = $fgetc(STDIN);
      sum = sum * 33 + c + r;
    end else begin
      sum = sum * 31 + c;
    end
  end
endmodule

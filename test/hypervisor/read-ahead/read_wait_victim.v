// A reader that waits part way through its file: it reads text.txt with
// $fgetc (served from the hypervisor's read-ahead windows) to byte 3000,
// then polls once a tick for the file "go" with the input file still open
// and half read, then reads the rest. The test migrates it to another
// hypervisor while it waits; its output hashes every byte it read and the
// position of each $ftell, so a byte the move read twice or skipped, or a
// stream left elsewhere, changes it.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, go, c, pos;
  integer n = 0;
  reg [31:0] sum = 0;
  initial fd = $fopen("text.txt", "r");
  always @(posedge clock) begin
    if (n == 3000) begin
      go = $fopen("go", "r");
      if (go != 0) begin
        $fclose(go);
        pos = $ftell(fd);
        $display("going on at %0d with sum %h", pos, sum);
        n = n + 1;
      end
    end else begin
      c = $fgetc(fd);
      if (c == -1) begin
        $display("end after %0d bytes: sum %h, eof %0d", n, sum, $feof(fd));
        $finish;
      end
      sum = sum * 31 + c;
      n = n + 1;
      if (n % 500 == 0) begin
        pos = $ftell(fd);
        $display("%0d: at %0d, sum %h", n, pos, sum);
      end
    end
  end
endmodule

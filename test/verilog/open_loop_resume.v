// After a serviced trap the engine goes back into open loop and finishes the
// trapped tick itself, unless the tick has end-of-tick work. This design
// traps in every position a tick can hold a task: first in its pass, after
// blocking and non-blocking writes, twice in one pass, in the pass a
// non-blocking update triggers (the derived clock), on the falling edge,
// and with a $strobe some ticks, so that runs of resumed ticks alternate with
// ticks the host finishes.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c, n = 0, sum = 0, passes = 0;
  reg [7:0] last = 0;
  reg slow = 0;
  initial fd = $fopen("text.txt", "r");
  always @(posedge clock) begin
    c = $fgetc(fd);
    n = n + 1;
    last <= c[7:0];
    if (c == -1) begin
      passes = passes + 1;
      if (passes == 4) begin
        $display("end n=%0d sum=%0d eof=%0d t=%0t", n, sum, $feof(fd), $time);
        $finish;
      end
      c = $rewind(fd);
      c = $fgetc(fd);
    end
    sum = sum + c;
    if (c == "e") begin
      c = $fgetc(fd);
      if (c != -1) sum = sum + 2 * c;
    end
    if (n % 7 == 0) slow <= ~slow;
    if (n % 5 == 0) $strobe("strobe n=%0d last=%0d sum=%0d", n, last, sum);
  end
  always @(posedge slow) $display("slow n=%0d last=%0d t=%0t", n, last, $time);
  always @(negedge clock) if (last == " ") $display("space after n=%0d t=%0t", n, $time);
endmodule

// $finish as vvp does it: the calling process stops at the call (the rest
// of its loop and block never runs); a process woken later in the same tick
// runs until its next system task, performs it and stops; non-blocking
// assignments made before still latch and $strobe still prints; no later
// tick runs.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0, i;
  reg go = 0;
  reg [7:0] r = 0, s = 0;
  always @(posedge clock) begin
    n = n + 1;
    $display("tick %0d", n);
    for (i = 0; i < 4; i = i + 1)
      if (n == 3 && i == 2) begin
        r <= 8'd9;
        go = 1;
        $strobe("strobe r=%0d s=%0d", r, s);
        $finish;
        $display("after finish");
      end
    $display("tail %0d i=%0d", n, i);
  end
  always @(posedge go) begin
    s = 7;
    $display("woken s=%0d r=%0d", s, r);
    s = 8;
    $display("woken again");
  end
  always @(negedge clock) $display("negedge %0d", n);
endmodule

// A for loop whose body prints: every iteration traps into the runtime
// within one tick.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer i, tick = 0, total;
  always @(posedge clock) begin
    total = 0;
    for (i = 0; i <= tick; i = i + 1) begin
      total = total + i;
      $display("tick %0d i %0d total %0d", tick, i, total);
    end
    tick = tick + 1;
    if (tick == 4) $finish;
  end
endmodule

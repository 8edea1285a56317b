// repeat loops with a task inside, with a count that changes per tick.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer count = 1, k;
  always @(posedge clock) begin
    k = 0;
    repeat (count) begin
      k = k + 1;
      $display("count %0d pass %0d", count, k);
    end
    count = count + 1;
    if (count == 5) $finish;
  end
endmodule

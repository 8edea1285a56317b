// A user task (with a $display inside) called from two places.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0;
  reg [15:0] acc = 0;
  task report(input [15:0] value, input [7:0] tag);
    begin
      $display("[%c] value=%0d", tag, value);
    end
  endtask
  always @(posedge clock) begin
    acc = acc + n * 11;
    report(acc, "A");
    if (n[0]) report(acc >> 1, "B");
    n = n + 1;
    if (n == 5) $finish;
  end
endmodule

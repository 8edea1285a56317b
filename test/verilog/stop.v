// $stop ends the run like `vvp -n` does.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0;
  always @(posedge clock) begin
    n = n + 1;
    $display("n=%0d", n);
    if (n == 3) $stop;
  end
endmodule

// $monitor prints whenever a monitored variable changes, at end of tick.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [3:0] slow = 0;
  integer n = 0;
  initial $monitor("slow=%0d", slow);
  always @(posedge clock) begin
    n = n + 1;
    if (n % 3 == 0) slow <= slow + 1;
    if (n == 10) $finish;
  end
endmodule

// An @* combinational block and a continuous assign feed a clocked block.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] a = 3, b = 5;
  reg [8:0] sum;
  wire [15:0] product = a * b;
  always @* sum = a + b;
  integer n = 0;
  always @(posedge clock) begin
    $display("a=%0d b=%0d sum=%0d product=%0d", a, b, sum, product);
    a <= a + 7;
    b <= b ^ 8'h3c;
    n = n + 1;
    if (n == 6) $finish;
  end
endmodule

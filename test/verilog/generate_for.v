// A generate-for builds a chain of registers (a shift register).
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [3:0] stage [0:4];
  reg [3:0] in = 1;
  genvar g;
  generate
    for (g = 1; g < 5; g = g + 1) begin : shift
      always @(posedge clock) stage[g] <= stage[g - 1];
    end
  endgenerate
  always @(posedge clock) begin
    stage[0] <= in;
    in <= in + 3;
  end
  integer n = 0, i;
  initial for (i = 0; i < 5; i = i + 1) stage[i] = 0;
  always @(negedge clock) begin
    $display("%h %h %h %h %h", stage[0], stage[1], stage[2], stage[3], stage[4]);
    n = n + 1;
    if (n == 7) $finish;
  end
endmodule

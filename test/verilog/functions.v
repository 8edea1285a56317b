// Functions (with a loop inside and a signed result) called from a clocked
// block; an `if` without `else` inside the true arm of an if/else keeps the
// `else` on the outer `if`.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  function [7:0] popcount(input [31:0] v);
    integer k;
    begin
      popcount = 0;
      for (k = 0; k < 32; k = k + 1) popcount = popcount + v[k];
    end
  endfunction
  function signed [15:0] diff(input signed [15:0] x, input signed [15:0] y);
    diff = x - y;
  endfunction
  function [31:0] gcd(input [31:0] x, input [31:0] y);
    reg [31:0] t;
    begin
      while (y != 0) begin
        t = y;
        y = x % y;
        x = t;
      end
      gcd = x;
    end
  endfunction
  function [7:0] classify(input [7:0] x);
    begin
      classify = 0;
      if (x[0]) begin
        if (x[1]) classify = 3;
      end else if (x[2]) begin
        if (x[3]) classify = 12;
      end else
        classify = 7;
    end
  endfunction
  reg [31:0] v = 32'h00ff00f3;
  integer n = 0;
  always @(posedge clock) begin
    $display("v=%h popcount=%0d diff=%0d gcd=%0d classify=%0d %0d %0d %0d %0d", v, popcount(v), diff(n, 10),
             gcd(v[15:0] + 1, 36), classify(v[7:0]), classify(8'd1), classify(8'd4), classify(8'd12), classify(8'd0));
    v = v * 5 + 1;
    n = n + 1;
    if (n == 5) $finish;
  end
endmodule

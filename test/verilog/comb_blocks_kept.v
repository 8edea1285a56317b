// Combinational always blocks that stay combinational logic outside the
// core (a chain through a module port and a continuous assign, if/case,
// a counted for loop, a pure function), next to ones that must stay in the
// core: an input written with a blocking assignment and read back after
// the write ($display sees the old output in vvp), and a latch.
module popcount (input wire [7:0] v, output reg [3:0] n);
  integer i;
  always @* begin
    n = 0;
    for (i = 0; i < 8; i = i + 1) n = n + v[i];
  end
endmodule

module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] a = 8'd3, b = 8'd200, c = 8'd1;
  reg [1:0] sel = 0;
  reg [8:0] sum;
  reg [7:0] chosen, stale, held = 0;
  wire [7:0] twice = chosen << 1;
  wire [3:0] ones;
  popcount count (.v(twice), .n(ones));
  function [7:0] mix(input [7:0] x, input [7:0] y);
    mix = (x ^ y) + 8'd5;
  endfunction
  always @* sum = a + b;
  always @* begin
    case (sel)
      2'd0: chosen = a;
      2'd1: chosen = b;
      2'd2: chosen = mix(a, b);
      default: chosen = sum[8:1];
    endcase
    if (chosen > 8'd100) chosen = chosen - 8'd100;
  end
  always @* stale = c * 8'd3;
  always @* if (sel == 2'd3) held = a;
  integer n = 0;
  always @(posedge clock) begin
    $display("a=%0d b=%0d sum=%0d sel=%0d chosen=%0d twice=%0d ones=%0d held=%0d",
             a, b, sum, sel, chosen, twice, ones, held);
    c = c + 8'd1;
    $display("c=%0d stale=%0d", c, stale);
    a <= a + 8'd37;
    b <= b ^ 8'h5a;
    sel <= sel + 2'd1;
    n = n + 1;
    if (n == 12) $finish;
  end
endmodule

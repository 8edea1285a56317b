// A small hierarchy: an adder and an accumulator instance inside tb.
module adder (input wire [7:0] a, input wire [7:0] b, output wire [8:0] s);
  assign s = a + b;
endmodule

module accumulator (input wire clock, input wire [7:0] in, output reg [15:0] total);
  initial total = 0;
  always @(posedge clock) total <= total + in;
endmodule

module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] x = 10, y = 20;
  wire [8:0] s;
  wire [15:0] total;
  adder add (.a(x), .b(y), .s(s));
  accumulator acc (.clock(clock), .in(s[7:0]), .total(total));
  integer n = 0;
  always @(posedge clock) begin
    $display("x=%0d y=%0d s=%0d total=%0d", x, y, s, total);
    x <= x + 50;
    y <= y + 3;
    n = n + 1;
    if (n == 8) $finish;
  end
endmodule

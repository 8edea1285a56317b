// Parameters, localparams and defparam-free overrides change widths and limits.
module counter #(parameter WIDTH = 4, parameter LIMIT = 9) (input wire clock, output reg [WIDTH-1:0] count,
                                                           output reg wrapped);
  localparam TOP = LIMIT - 1;
  initial begin count = 0; wrapped = 0; end
  always @(posedge clock) begin
    if (count == TOP) begin count <= 0; wrapped <= 1; end
    else begin count <= count + 1; wrapped <= 0; end
  end
endmodule

module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  wire [3:0] small_count;
  wire [7:0] big_count;
  wire small_wrap, big_wrap;
  counter small_counter (.clock(clock), .count(small_count), .wrapped(small_wrap));
  counter #(.WIDTH(8), .LIMIT(3)) big_counter (.clock(clock), .count(big_count), .wrapped(big_wrap));
  integer n = 0;
  always @(negedge clock) begin
    $display("small %0d %b big %0d %b", small_count, small_wrap, big_count, big_wrap);
    n = n + 1;
    if (n == 11) $finish;
  end
endmodule

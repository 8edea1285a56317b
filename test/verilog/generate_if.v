// generate-if selects an implementation by parameter in two instances.
module step #(parameter UP = 1) (input wire clock, output reg [7:0] value);
  initial value = 100;
  generate
    if (UP) begin : up
      always @(posedge clock) value <= value + 2;
    end else begin : down
      always @(posedge clock) value <= value - 3;
    end
  endgenerate
endmodule

module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  wire [7:0] up_value, down_value;
  step #(.UP(1)) rising (.clock(clock), .value(up_value));
  step #(.UP(0)) falling (.clock(clock), .value(down_value));
  integer n = 0;
  always @(negedge clock) begin
    $display("up=%0d down=%0d", up_value, down_value);
    n = n + 1;
    if (n == 5) $finish;
  end
endmodule

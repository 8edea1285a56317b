// A clock that reaches a module through a port goes x->0 at time 0 under
// vvp, after the module's processes started waiting: its negedge blocks run
// once at time 0. A block on the clock register itself, and a posedge block
// behind the port, see no edge at time 0.
module counter(input wire clock, output reg [7:0] falls, output reg [7:0] rises);
  initial begin
    falls = 0;
    rises = 0;
  end
  always @(negedge clock) begin
    falls <= falls + 1;
    $display("%0t counter negedge falls=%0d", $time, falls);
  end
  always @(posedge clock) rises <= rises + 1;
endmodule
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  wire [7:0] falls, rises;
  counter u(.clock(clock), .falls(falls), .rises(rises));
  integer own = 0;
  always @(negedge clock) own = own + 1;
  always @(posedge clock) begin
    $display("%0t tb posedge own=%0d falls=%0d rises=%0d", $time, own, falls, rises);
    if (rises == 3) $finish;
  end
endmodule

// A clock that starts at 1 reaches a module through a port as x->1 at time
// 0 under vvp, after the module's processes started waiting: its posedge
// and change blocks run once at time 0, its negedge blocks do not. A block
// on the clock register itself sees no edge at time 0 (the counterpart of
// negedge_at_time_zero.v, where the clock starts at 0). Counters are
// written non-blocking, so a display reads them free of same-time races.
module counter(input wire clock, output reg [7:0] rises, output reg [7:0] falls,
               output reg [7:0] changes);
  initial begin
    rises = 0;
    falls = 0;
    changes = 0;
  end
  always @(posedge clock) begin
    rises <= rises + 1;
    $display("%0t counter posedge rises=%0d falls=%0d changes=%0d", $time, rises, falls, changes);
  end
  always @(negedge clock) falls <= falls + 1;
  always @(clock) changes <= changes + 1;
endmodule
module tb;
  reg clock = 1;
  always #1 clock = ~clock;
  wire [7:0] rises, falls, changes;
  counter u(.clock(clock), .rises(rises), .falls(falls), .changes(changes));
  integer ownRises = 0;
  always @(posedge clock) ownRises <= ownRises + 1;
  always @(negedge clock) begin
    $display("%0t tb negedge ownRises=%0d rises=%0d falls=%0d changes=%0d", $time, ownRises, rises, falls,
             changes);
    if (rises == 4) $finish;
  end
endmodule

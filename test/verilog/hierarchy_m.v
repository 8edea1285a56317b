// %m names the hierarchical scope of the task call inside nested instances.
module leaf (input wire clock);
  integer hits = 0;
  always @(posedge clock) begin
    hits = hits + 1;
    if (hits == 2) $display("%m: hits=%0d", hits);
  end
endmodule

module branch (input wire clock);
  leaf left (.clock(clock));
  leaf right (.clock(clock));
endmodule

module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  branch top_branch (.clock(clock));
  integer n = 0;
  always @(posedge clock) begin
    n = n + 1;
    if (n == 3) begin
      $display("%m done");
      $finish;
    end
  end
endmodule

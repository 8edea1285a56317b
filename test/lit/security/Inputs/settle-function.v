// The counter of counter.v with a function that loops: the real engine the
// forged function loop of endless-engine-loop.v starts from, where the
// emitted Verilog holds the loop as a `while` in a function body.
module tb;
  reg clock = 0;
  reg [7:0] count = 0;
  always #1 clock = ~clock;
  function [7:0] settle(input [7:0] start);
    reg [7:0] k;
    begin
      k = start;
      while (k < 8'd100) k = k + 8'd1;
      settle = k;
    end
  endfunction
  always @(posedge clock) begin
    count <= count + 1;
    if (count == 3) begin
      $display("count %0d settled at %0d", count, settle(count));
      $finish;
    end
  end
endmodule

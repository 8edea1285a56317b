// A clocked counter with a task: the real engine every crafted .eng in this
// directory starts from, so each differs from a valid file in one place.
module tb;
  reg clock = 0;
  reg [7:0] count = 0;
  always #1 clock = ~clock;
  always @(posedge clock) begin
    count <= count + 1;
    if (count == 3) begin
      $display("count %0d", count);
      $finish;
    end
  end
endmodule

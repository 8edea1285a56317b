// Always blocks that wait in the middle of their body: a leading event
// control is the guard and later ones are resume points; one that waits
// only after some statements runs from time 0 like a forever loop. Each
// block prints on its own edge so the output does not depend on the order
// in which the simulator runs blocks woken together.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer cycle = 0;
  reg [7:0] a = 0, b = 0;
  always @(posedge clock) begin
    cycle <= cycle + 1;
    if (cycle == 14) $finish;
  end

  always begin
    @(posedge clock) a = a + 1;
    $display("a one a=%0d cycle=%0d", a, cycle);
    @(posedge clock);
    @(posedge clock);
    a = a + 10;
    $display("a two a=%0d cycle=%0d", a, cycle);
  end

  always begin
    b = b + 5;
    @(negedge clock);
    $display("b=%0d cycle=%0d at %0t", b, cycle, $time);
    if (b > 20) begin
      @(negedge clock);
      $display("b extra wait at %0t", $time);
    end
  end
endmodule

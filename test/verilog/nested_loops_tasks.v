// Nested for loops with tasks at both depths: a multiplication table.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer row = 1, col;
  always @(posedge clock) begin
    $write("%2d:", row);
    for (col = 1; col <= 6; col = col + 1) begin
      $write(" %2d", row * col);
      if (col == 3) $write(" |");
    end
    $display("");
    row = row + 1;
    if (row == 5) $finish;
  end
endmodule

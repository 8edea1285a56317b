// $fopen of a missing file returns 0, and the program can test for it.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd;
  initial begin
    fd = $fopen("does_not_exist.txt", "r");
    $display("fd = %0d", fd);
  end
  always @(posedge clock) begin
    if (fd == 0) $display("missing file handled");
    $finish;
  end
endmodule

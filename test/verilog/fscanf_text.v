// $fscanf over a text file, one record per tick, until it returns -1.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, count, a, b;
  reg [8*8-1:0] name;
  initial fd = $fopen("pairs.txt", "r");
  always @(posedge clock) begin
    count = $fscanf(fd, "%s %d %d\n", name, a, b);
    if (count != 3) begin
      $display("fscanf returned %0d, done", count);
      $finish;
    end else
      $display("%0s: %0d + %0d = %0d", name, a, b, a + b);
  end
endmodule

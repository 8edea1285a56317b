// Tasks inside nested if/else branches: only the taken path prints.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0;
  always @(posedge clock) begin
    if (n < 4) begin
      if (n[0])
        $display("n=%0d small odd", n);
      else begin
        $display("n=%0d small even", n);
        if (n == 2) $display("  and it is two");
      end
    end else if (n < 8) begin
      $write("n=%0d ", n);
      if (n % 3 == 0) $display("medium multiple of 3");
      else $display("medium");
    end else begin
      $display("n=%0d large, done", n);
      $finish;
    end
    n = n + 1;
  end
endmodule

// Empty branches, rejoins and loop exits chained one after another, and a
// $finish after which a process it wakes stops at its next task: the states
// that only jump are threaded away, and every path must still reach the
// same statements in the same order.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0, i, j, hits = 0;
  reg go = 0;
  always @(posedge clock) begin
    if (n % 3 == 0) begin
      if (n % 2 == 0) $display("n=%0d divisible by six", n);
    end else begin
      if (n % 3 == 1) begin
      end else begin
        $display("n=%0d leaves 2", n);
      end
    end
    begin : scan
      for (i = 0; i < 4; i = i + 1) begin
        if (i == n % 5) begin
          hits = hits + 1;
          disable scan;
        end
      end
    end
    j = 0;
    while (j < n % 3) begin
      if (j == 1) $display("n=%0d j=%0d", n, j);
      j = j + 1;
    end
    case (n % 4)
      0: ;
      1: if (hits > 6) $display("n=%0d hits=%0d", n, hits);
      default: begin end
    endcase
    if (n == 11) begin
      go = 1;
      if (hits > 0) $display("finishing with hits=%0d", hits);
      $finish;
    end
    n = n + 1;
  end
  always @(posedge go) begin
    if (hits > 100) begin
    end else begin
      if (hits > 5) $display("woken with hits=%0d", hits);
    end
    $display("not reached: the run is finishing");
  end
endmodule

// `disable` of an enclosing named block: the loop-break idiom (a search
// that stops at the first match), the loop-continue idiom (a named loop
// body), and a disable that skips the rest of a block with tasks in it.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer n = 0, i, j, found;
  reg [7:0] mem [0:15];
  initial for (i = 0; i < 16; i = i + 1) mem[i] = i * 7 % 13;
  always @(posedge clock) begin
    n = n + 1;
    found = -1;
    begin : search
      for (i = 0; i < 16; i = i + 1)
        if (mem[i] == n) begin
          found = i;
          disable search;
        end
    end
    $display("n=%0d found at %0d i=%0d", n, found, i);
    for (j = 0; j < 5; j = j + 1) begin : body
      if (j == n % 5) disable body;
      $display("  j=%0d", j);
    end
    begin : tail
      if (n % 3 == 0) begin
        $display("  skipping the tail");
        disable tail;
      end
      $display("  tail of %0d", n);
    end
    if (n == 8) $finish;
  end
endmodule

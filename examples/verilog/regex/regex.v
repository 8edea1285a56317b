// A streaming regular-expression matcher: a one-hot NFA for h[ae]llo+ that
// consumes one character of a text file per tick ($fgetc) and reports every
// line containing a match, the column where the match completed, and totals.
// SAVE-AT-TICK: 150 (the split run in test/verilog/run_differential.py --save-restart)
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c;
  integer line = 1, column = 0, matches = 0, matched_lines = 0;
  reg [5:0] active = 0;  // active[k]: the first k pattern elements matched
  reg line_matched = 0;
  reg [5:0] next;
  initial begin
    fd = $fopen("input.txt", "r");
    if (fd == 0) begin
      $display("cannot open input.txt");
      $finish;
    end
  end
  always @(posedge clock) begin
    c = $fgetc(fd);
    if (c == -1) begin
      $display("%0d matches on %0d of %0d lines", matches, matched_lines, line - 1);
      $finish;
    end else if (c == "\n") begin
      if (active[5]) begin
        matches = matches + 1;
        line_matched = 1;
        $display("line %0d: match ending at column %0d", line, column);
      end
      if (line_matched) matched_lines = matched_lines + 1;
      line = line + 1;
      column = 0;
      active = 0;
      line_matched = 0;
    end else begin
      column = column + 1;
      next[0] = 1;
      next[1] = c == "h";
      next[2] = active[1] && (c == "a" || c == "e");
      next[3] = active[2] && c == "l";
      next[4] = active[3] && c == "l";
      next[5] = (active[4] || active[5]) && c == "o";
      // Report a match once, when the o+ run ends or the line ends.
      if (active[5] && !next[5]) begin
        matches = matches + 1;
        line_matched = 1;
        $display("line %0d: match ending at column %0d", line, column - 1);
      end
      active = next;
    end
  end
endmodule

// Write a file with $fdisplay/$fwrite, close it, then read it back.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer out, in, n = 0, c;
  initial out = $fopen("written.txt", "w");
  always @(posedge clock) begin
    if (n < 4) begin
      $fdisplay(out, "line %0d value %h", n, n * 17);
      $fwrite(out, "w%0d;", n);
    end else if (n == 4) begin
      $fclose(out);
      in = $fopen("written.txt", "r");
    end else begin
      c = $fgetc(in);
      while (c != -1) begin
        $write("%c", c);
        c = $fgetc(in);
      end
      $display("<end>");
      $finish;
    end
    n = n + 1;
  end
endmodule

// $fseek, $ftell and $rewind move around a text file between reads.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c, r, n = 0;
  initial fd = $fopen("text.txt", "r");
  always @(posedge clock) begin
    case (n)
      0: begin r = $fseek(fd, 7, 0); c = $fgetc(fd); $display("seek 7 -> %0d '%c' tell %0d", r, c, $ftell(fd)); end
      1: begin r = $fseek(fd, 2, 1); c = $fgetc(fd); $display("skip 2 -> '%c' tell %0d", c, $ftell(fd)); end
      2: begin r = $fseek(fd, -3, 2); c = $fgetc(fd); $display("end-3 -> '%c' tell %0d", c, $ftell(fd)); end
      3: begin r = $rewind(fd); c = $fgetc(fd); $display("rewind %0d -> '%c' tell %0d", r, c, $ftell(fd)); end
      default: $finish;
    endcase
    n = n + 1;
  end
endmodule

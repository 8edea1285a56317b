// `a, b: stmt` arms that read a file and print, the way nw reads both of its
// sequences (mergeDuplicateCaseItems gives each such arm one copy); arms 0
// and 2 have the same body but are not adjacent, so they stay apart, and arm
// 1 must still win for phase 1.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c, n = 0;
  reg [1:0] phase = 0;
  initial fd = $fopen("text.txt", "r");
  always @(posedge clock) begin
    case (phase)
      2'd0: begin c = $fgetc(fd); $display("zero %0d", c); end
      2'd1, 2'd3: begin
        c = $fgetc(fd);
        if (c == -1) begin
          $display("done after %0d reads", n);
          $finish;
        end
        n = n + 1;
        $display("phase %0d read %0d n %0d", phase, c, n);
      end
      2'd2: begin c = $fgetc(fd); $display("zero %0d", c); end
    endcase
    phase = phase + 1;
  end
endmodule

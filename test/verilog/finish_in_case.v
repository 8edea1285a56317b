// $finish reached from inside a case arm inside a loop.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer i, n = 0;
  always @(posedge clock) begin
    for (i = 0; i < 3; i = i + 1) begin
      case ((n + i) % 4)
        0: $display("n=%0d i=%0d zero", n, i);
        3: if (n > 4) begin $display("n=%0d i=%0d finishing", n, i); $finish; end
        default: ;
      endcase
    end
    n = n + 1;
  end
endmodule

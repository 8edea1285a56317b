// A case statement whose arms call tasks, including a default arm.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [2:0] op = 0;
  reg [7:0] acc = 1;
  always @(posedge clock) begin
    case (op)
      3'd0: begin acc = acc + 3; $display("add -> %0d", acc); end
      3'd1: begin acc = acc * 2; $display("double -> %0d", acc); end
      3'd2, 3'd3: begin acc = acc - 1; $display("dec (op %0d) -> %0d", op, acc); end
      3'd4: $display("nop at op 4");
      default: begin
        $display("default op %0d acc %0d", op, acc);
        if (op == 7) $finish;
      end
    endcase
    op = op + 1;
  end
endmodule

// casez with wildcard patterns selecting tasks; a priority decoder.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [3:0] req = 4'b0001;
  integer n = 0;
  always @(posedge clock) begin
    casez (req)
      4'b1???: $display("req=%b grant 3", req);
      4'b01??: $display("req=%b grant 2", req);
      4'b001?: $display("req=%b grant 1", req);
      4'b0001: $display("req=%b grant 0", req);
      default: $display("req=%b none", req);
    endcase
    req = req * 3 + 1;
    n = n + 1;
    if (n == 9) $finish;
  end
endmodule

// A table set element by element at the start of an initial block is a
// ROM of the engine; its reads (indexed, as a task argument, in a guard's
// process) match vvp, and a table written again later stays a memory.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [15:0] squares [0:7];
  reg [7:0] scratch [0:3];
  reg [2:0] k = 0;
  integer n = 0;
  initial begin
    squares[0] = 16'd0; squares[1] = 16'd1; squares[2] = 16'd4; squares[3] = 16'd9;
    squares[4] = 16'd16; squares[5] = 16'd25; squares[6] = 16'd36; squares[7] = 16'd49;
    scratch[0] = 8'd7; scratch[1] = 8'd8; scratch[2] = 8'd9; scratch[3] = 8'd10;
    $display("first %0d last %0d", squares[0], squares[7]);
  end
  always @(posedge clock) begin
    scratch[k[1:0]] <= scratch[k[1:0]] + squares[k][7:0];
    $display("k=%0d square=%0d sum=%0d scratch=%0d", k, squares[k], squares[k] + squares[7 - k],
             scratch[k[1:0]]);
    k <= k + 3'd1;
    n = n + 1;
    if (n == 10) $finish;
  end
endmodule

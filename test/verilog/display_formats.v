// Icarus's format specifiers and default widths on values computed at run time.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [11:0] v = 12'h0a5;
  reg signed [9:0] s = -10'sd37;
  reg [47:0] text = "Synrgy";
  integer n = 0;
  always @(posedge clock) begin
    $display("[%d][%0d][%h][%o][%b][%5d][%-5d|][%05d]", v, v, v, v, v, v, v, v);
    $display("[%d][%h][%0b][%s][%0s][%c]", s, s, s, text, text, text[7:0]);
    $display(v, s, " ", n);
    $displayh(v, " ", s);
    v = v * 3 + 1;
    s = s * 2 + 5;
    text = {text[39:0], text[47:40]};
    n = n + 1;
    if (n == 4) $finish;
  end
endmodule

// A one-bit signed expression (a genvar expression such as -j+1) passed to
// a wide signed input port is sign-extended, also when it is a scalar net.
module scale(input wire signed [15:0] w, output wire signed [15:0] o);
  assign o = w * 3;
endmodule
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  genvar j;
  generate for (j = 0; j < 4; j = j + 1) begin : g
    wire signed [15:0] o, p;
    scale c(.w(-j+1), .o(o));
    scale b(.w(j[0] ? 1'sb1 : 1'sb0), .o(p));
  end endgenerate
  always @(posedge clock) begin
    $display("%0d %0d %0d %0d", g[0].o, g[1].o, g[2].o, g[3].o);
    $display("%0d %0d %0d %0d", g[0].p, g[1].p, g[2].p, g[3].p);
    $finish;
  end
endmodule

// Writes outside a vector or a memory do nothing (IEEE 1364-2005 5.2.1,
// 5.2.2), and a part-select partly outside writes only its inside bits:
// constant and run-time addresses, blocking and non-blocking, bit-selects,
// part-selects, and a concatenated target. (vvp 11 aborts on a memory-word
// bit-select outside its word, so there is none here.)
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] x = 0, y = 0, z = 0;
  reg [3:0] c = 0;
  reg [7:0] m [0:3];
  reg [7:0] n [2:6];
  reg [15:0] w = 0, v = 0;
  integer i = 0, k;
  initial begin
    for (k = 0; k < 4; k = k + 1) m[k] = k + 10;
    for (k = 2; k <= 6; k = k + 1) n[k] = k + 20;
    x[1000] = 1;
    y[1000:1] = -1;
    {c, z[9:6]} = 8'b1011_0111;
    m[1000] = 8'h55;
    $display("constant: x=%b y=%b z=%b c=%b m=%h %h %h %h", x, y, z, c, m[0], m[1], m[2], m[3]);
  end
  always @(posedge clock) begin
    m[1000] <= 1;
    n[7] <= 8'h77;
    x[i] = 1;
    y[i] <= 1;
    m[i] = 8'hee;
    n[i] <= 8'hdd;
    w[i +: 4] = 4'hf;
    w[i - 3 +: 6] = 6'h2a;
    v[i -: 5] = 5'b10111;
    $display("i=%0d x=%b m=%h %h %h %h n=%h %h %h %h %h w=%h v=%h", i, x, m[0], m[1], m[2], m[3],
             n[2], n[3], n[4], n[5], n[6], w, v);
    x = 0; w = 0; v = 0;
    i = i * 2 + 1;
    if (i > 40) $finish;
  end
  always @(negedge clock) $display("  y=%b", y);
endmodule

// Local arrays of `function automatic` and `task automatic`: words written
// and read at indexes computed at run time, read-modify-write of a word,
// a task with an output called from two processes, and a function called
// twice in one expression. (vvp starts an automatic array at x, the
// engine at 0, so every word is set before it is read here.)
// SAVE-AT-TICK: 3
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  function automatic [15:0] histogram(input [15:0] nibbles);
    reg [3:0] count [0:3];
    integer k;
    begin
      for (k = 0; k < 4; k = k + 1) count[k] = k == 0;
      for (k = 0; k < 4; k = k + 1) count[nibbles[4 * k +: 2]] = count[nibbles[4 * k +: 2]] + 1;
      histogram = {count[3], count[2], count[1], count[0]};
    end
  endfunction
  task automatic rotate(input [31:0] word, input [1:0] by, output [31:0] result);
    reg [7:0] bytes [0:3];
    integer k;
    begin
      for (k = 0; k < 4; k = k + 1) bytes[(k - by) & 3] = word[8 * k +: 8];
      result = {bytes[3], bytes[2], bytes[1], bytes[0]};
    end
  endtask
  reg [15:0] seed = 16'h1234;
  reg [31:0] word = 32'h11223344, a, b;
  integer n = 0;
  always @(posedge clock) begin
    rotate(word, n[1:0], a);
    $display("%0d: histogram(%h)=%h rotate=%h sum=%h", n, seed, histogram(seed), a,
             histogram(seed) + histogram(~seed));
    seed = seed * 5 + 3;
    word = word + 32'h01010101;
    n = n + 1;
    if (n == 8) $finish;
  end
  always @(negedge clock) begin
    rotate(~word, 2'd1, b);
    $display("   neg rotate=%h", b);
  end
endmodule

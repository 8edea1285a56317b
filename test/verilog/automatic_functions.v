// `function automatic` and `task automatic`: the variables of every call
// start new (0 in the two-state engine, set before use here as vvp needs),
// automatic functions call each other and are called twice in one
// expression, an automatic task with outputs is called from two processes,
// and a recursive function with constant arguments in a constant
// expression is evaluated at compile time.
// SAVE-AT-TICK: 3
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  function automatic integer fact(input integer n);
    fact = n <= 1 ? 1 : n * fact(n - 1);
  endfunction
  function automatic [15:0] mix(input [7:0] a, input [7:0] b);
    reg [15:0] t;
    integer i;
    begin
      t = 0;
      for (i = 0; i < 8; i = i + 1) t = t + (a[i] ? b << i : 0);
      mix = t ^ {b, a};
    end
  endfunction
  function automatic [15:0] twice(input [7:0] a);
    twice = mix(a, a) + mix(a, 8'd3);
  endfunction
  task automatic accumulate(input [7:0] v, inout [31:0] total, output [15:0] last);
    reg [15:0] m;
    begin
      m = mix(v, v + 1);
      total = total + m;
      last = m;
    end
  endtask
  localparam F5 = fact(5);
  localparam F10 = fact(10);
  reg [7:0] x = 5;
  reg [31:0] sumA = 0, sumB = 100;
  reg [15:0] lastA, lastB;
  integer n = 0;
  always @(posedge clock) begin
    accumulate(x, sumA, lastA);
    $display("%0d: x=%0d mix=%h twice=%h pair=%0d sumA=%0d lastA=%h F5=%0d F10=%0d", n, x, mix(x, 8'h21),
             twice(x), mix(x, 1) + mix(1, x), sumA, lastA, F5, F10);
    x = x * 3 + 1;
    n = n + 1;
    if (n == 8) $finish;
  end
  always @(negedge clock) begin
    accumulate(x + 7, sumB, lastB);
    $display("   neg sumB=%0d lastB=%h", sumB, lastB);
  end
endmodule

// Recursion in a clocked always block, across several ticks: each tick
// computes fib and the digit sum of a counter with recursive automatic
// functions, at a depth that grows with the counter, and keeps the results
// in registers that later ticks read.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  function automatic [15:0] fib(input [7:0] n);
    fib = n < 2 ? n : fib(n - 1) + fib(n - 2);
  endfunction

  // Digit sum of v in base b, one call per digit.
  function automatic integer digits(input integer v, input integer b);
    begin
      if (v < b) digits = v;
      else digits = v % b + digits(v / b, b);
    end
  endfunction

  reg [7:0] n = 0;
  reg [15:0] last = 0;
  integer total = 0;
  always @(posedge clock) begin
    last <= fib(n);
    total = total + digits(n * 37 + last, n % 3 + 2);
    $display("%0d: fib %0d previous %0d digits %0d", n, fib(n), last, total);
    n <= n + 1;
    if (n == 14) $finish;
  end
endmodule

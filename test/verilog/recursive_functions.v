// Recursion whose depth depends on run-time values: factorial of a register,
// fibonacci (two recursive calls per activation, one inside the other's
// expression), a ?: that decides whether to recurse, and a depth read from a
// register, and a real-valued recursion, all in one initial block.
module tb;
  function automatic [31:0] fact(input [31:0] n);
    fact = n <= 1 ? 1 : n * fact(n - 1);
  endfunction

  function automatic integer fib(input integer n);
    integer a, b;
    begin
      if (n < 2)
        fib = n;
      else begin
        a = fib(n - 1);
        b = fib(n - 2);
        fib = a + b;
      end
    end
  endfunction

  // Sums 1..n with an accumulator argument: a deep tail call.
  function automatic integer sum_to(input integer n, input integer acc);
    sum_to = n == 0 ? acc : sum_to(n - 1, acc + n);
  endfunction

  // Two recursive calls in one expression, one as the other's argument.
  function automatic integer nest(input integer n);
    if (n <= 0) nest = 1;
    else nest = nest(n - 1) + nest(nest(n - 1) - n);
  endfunction

  // A real result and a real argument, halved at each level.
  function automatic real halve(input integer n, input real x);
    halve = n == 0 ? x : halve(n - 1, x / 2.0) + 0.25;
  endfunction

  reg [31:0] r;
  integer i, depth;
  initial begin
    r = 6;
    $display("fact(%0d) = %0d", r, fact(r));
    for (i = 0; i < 12; i = i + 1) $display("fib(%0d) = %0d, fact = %0d", i, fib(i), fact(i));
    depth = 40;
    $display("sum_to(%0d) = %0d", depth, sum_to(depth, 0));
    $display("nest = %0d %0d %0d", nest(0), nest(2), nest(4));
    $display("%0d", r > 3 ? fact(r - 3) : fib(r));
    $display("%0d", r < 3 ? fact(r - 3) : fib(r));
    $display("%f %f", halve(r, 100.0), halve(depth, 3.0));
    $finish;
  end
endmodule

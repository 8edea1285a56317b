// Hardware has no call stack, so a recursive function called with constant
// arguments outside a constant expression is evaluated at compile time:
// factorial, Fibonacci with locals, mutual recursion, signed division and
// remainder, a named block's local, an argument that is itself a constant
// call, and the results used in run-time arithmetic.
// SAVE-AT-TICK: 2
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  function automatic integer fact(input integer n);
    fact = n <= 1 ? 1 : n * fact(n - 1);
  endfunction
  function automatic [15:0] fib(input [7:0] n);
    reg [15:0] a, b;
    begin
      if (n < 2) fib = n;
      else begin
        a = fib(n - 1);
        b = fib(n - 2);
        fib = a + b;
      end
    end
  endfunction
  function automatic integer is_odd(input integer n);
    is_odd = n == 0 ? 0 : is_even(n - 1);
  endfunction
  function automatic integer is_even(input integer n);
    is_even = n == 0 ? 1 : is_odd(n - 1);
  endfunction
  function automatic signed [15:0] shrink(input signed [15:0] x, input integer k);
    shrink = k == 0 ? x : shrink(x / -3 % 1000 - 7, k - 1);
  endfunction
  function automatic [31:0] gcd(input [31:0] a, input [31:0] b);
    begin : body
      reg [31:0] r;
      r = b == 0 ? 0 : a % b;
      gcd = b == 0 ? a : gcd(b, r);
    end
  endfunction
  reg [31:0] acc = 0;
  integer n = 0;
  always @(posedge clock) begin
    acc = acc + fact(6) + fib(20) + gcd(1071, 462);
    $display("%0d: fact(10)=%0d fib(20)=%0d fib(fib(7))=%0d odd(7)=%0d even(10)=%0d shrink=%0d gcd=%0d", n,
             fact(10), fib(20), fib(fib(7)), is_odd(7), is_even(10), shrink(-30000, 4), gcd(1071, 462));
    $display("   acc=%0d sh=%h neg=%0d", acc, fact(5) << 3 >>> 1, -fact(4) * n);
    n = n + 1;
    if (n == 4) $finish;
  end
endmodule

// A case on a real compares as reals (IEEE 1364 9.5): -0.0 (made from its
// bits: vvp negates as 0.0 - x, so -r of 0.0 is +0.0 there and here) matches
// a 0.0 label, several labels share an arm, the first matching item wins,
// labels may be run-time values, a missing default does nothing, and a real
// case also works inside a function. A -0.0 constant is +0.0, as in vvp;
// a real's truth (`!r`, `r && k`, `r ? :`) compares with 0.0.
// SAVE-AT-TICK: 4
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  function integer bucket(input real v);
    case (v)
      1.0, 2.0: bucket = 12;
      -1.5: bucket = -15;
      default: bucket = v > 0.0 ? 100 : -100;
    endcase
  endfunction
  real r = -1.5, step = 0.5, limit = 1.0, probe;
  integer n = 0, hits = 0;
  always @(posedge clock) begin
    case (r * 2.0)
      0.0: $display("%0d: r=%f zero", n, r);
      -3.0, 3.0: $display("%0d: r=%f three", n, r);
      limit * 2.0, limit: $display("%0d: r=%f limit", n, r);
      2.0: $display("%0d: r=%f never (limit matched first)", n, r);
      default: $display("%0d: r=%f default", n, r);
    endcase
    probe = -r;
    if (r == 0.0) probe = $bitstoreal(64'h8000000000000000);
    case (probe)
      0.0: hits = hits + 1;
    endcase
    $display("   bucket=%0d hits=%0d neg=%f sign=%0d not=%0d and=%0d pick=%0d", bucket(r), hits, -r,
             $realtobits(-r) >> 63, !r, r && n, r ? 7 : 9);
    r = r == 0.5 ? -0.0 : r + step;
    n = n + 1;
    if (n == 9) $finish;
  end
endmodule

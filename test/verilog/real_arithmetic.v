// Real variables: arithmetic mixing reals and integers, comparisons, reals
// in conditions, a real memory, a real non-blocking assignment, and every
// $display conversion of a real. The design is clocked so that the split
// run carries the real state across $save/$restart.
// SAVE-AT-TICK: 9
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  real acc = 0.5;
  real step;
  real late = -1.25;
  real hist [0:3];
  integer n = 0;
  always @(posedge clock) begin
    step = acc * 1.5 - n / 4.0 + n;
    acc = acc + step;
    hist[n % 4] = acc;
    late <= late * -2 + 0.125;
    $display("%0d: acc=%f step=%e g=%g q=%0.3f w=[%12.4f] l=[%-12.2e] late=%f", n, acc, step,
             acc / 3, acc / 7, -step, step * 1e6, late);
    $display("   default: ", acc, " ", step / 3.0, " hist=%f", hist[(n + 3) % 4]);
    $display("   cmp %b %b %b %b %b", acc > step, acc == acc, step <= 0.0, (acc != 0.0) && (step < 1e3),
             acc < late || late >= 2.0);
    if (acc > 400.0) $display("   big");
    else if (step - step) $display("   never");
    else $display("   small %s", late ? "late nonzero" : "late zero");
    n = n + 1;
    if (n == 16) $finish;
  end
endmodule

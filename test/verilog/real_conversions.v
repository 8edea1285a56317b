// Conversions between reals and integers as IEEE 1364 4.8.2 states them:
// assignment rounds half away from zero and truncates to the target width,
// $rtoi truncates, an integer converts by value with its own signedness,
// $realtobits/$bitstoreal keep the exact bits; also `**`, the math system
// functions and functions with real arguments and results.
// SAVE-AT-TICK: 4
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  function real scaled(input real x, input integer k);
    scaled = x * k + 0.25;
  endfunction
  real halves [0:7];
  real r, s;
  integer i, t, k = 0;
  reg [7:0] u8;
  reg signed [7:0] s8;
  reg [63:0] bits;
  reg [95:0] wide;
  initial begin
    halves[0] = 2.5; halves[1] = -2.5; halves[2] = 0.5; halves[3] = -0.5;
    halves[4] = 2.4999; halves[5] = 300.7; halves[6] = -1.5; halves[7] = 1e20;
  end
  always @(posedge clock) begin
    r = halves[k];
    i = r;
    u8 = r;
    s8 = r;
    t = k < 7 ? $rtoi(r) : -1;  // 1e20 overflows $rtoi's 32-bit integer
    wide = r;
    bits = $realtobits(r);
    s = $bitstoreal(bits ^ 64'h8000000000000000);
    $display("%0d: r=%f i=%0d u8=%0d s8=%0d rtoi=%0d wide=%h bits=%h neg=%f", k, r, i, u8, s8, t, wide,
             bits, s);
    u8 = 8'hf0 + k;
    s8 = -3 - k;
    r = u8;
    s = s8;
    $display("   itor u=%f s=%f %f %f", r, s, $itor(s8), u8 + 0.5);
    r = k + 2;
    $display("   pow=%.15f sqrt=%.15f ln=%.12f fl=%f ce=%f f=%f", r ** 0.5, $sqrt(r), $ln(r), $floor(-r / 3),
             $ceil(r / 3), scaled(r, -k));
    k = k + 1;
    if (k == 8) $finish;
  end
endmodule

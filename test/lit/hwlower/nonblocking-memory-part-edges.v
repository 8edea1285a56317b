// A non-blocking part-select of a memory word at a run-time offset writes
// only its bits inside the word (IEEE 1364-2005 5.2.1), also when it
// straddles either edge of the word, and after a whole-word NBA to the same
// word in the same tick. vvp 11 aborts on such a write (an assertion in
// of_ASSIGN_VEC4_A_D), so this checks the IEEE result instead of a vvp run:
// `m[1][i -: 3] <= 3'b101` puts 1, 0, 1 at bits i, i-1, i-2.
// RUN: synergy-cc %s -o %t.eng
// RUN: synergy-run --engine compiled %t.eng | FileCheck %s

// CHECK:      i=-1 m1=00000000
// CHECK-NEXT: i=0 m1=00000001
// CHECK-NEXT: i=1 m1=00000010
// CHECK-NEXT: i=2 m1=00000101
// CHECK-NEXT: i=3 m1=00001010
// CHECK:      i=7 m1=10100000
// CHECK-NEXT: i=8 m1=01000000
// CHECK-NEXT: i=9 m1=10000000
// CHECK-NEXT: i=10 m1=00000000
// CHECK-NOT: {{.}}
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] m [0:1];
  integer i = -1;
  initial begin m[0] = 0; m[1] = 0; end
  always @(posedge clock) begin
    m[1] <= 0;
    m[1][i -: 3] <= 3'b101;
    i = i + 1;
    if (i > 11) $finish;
  end
  always @(negedge clock) $display("i=%0d m1=%b", i - 1, m[1]);
endmodule

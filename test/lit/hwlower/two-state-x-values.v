// Engines are two-state. Where Icarus computes x, an engine computes what
// Verilator's generated code computes for a zero divisor, and 0 for a read
// outside a vector or memory (documented in the README):
//   - x / 0 and x % 0 are 0: unsigned, signed, wider than 64 bits, constant
//     divisor, in a continuous assign and in a process;
//   - a memory word read at an address outside the memory is 0, a bit or
//     part read at an offset outside the vector reads its outside bits as 0,
//     whatever the memory's size (Verilator would wrap or clamp).
// RUN: synergy-cc %s -o %t.eng
// RUN: synergy-run --engine compiled %t.eng | FileCheck %s

// CHECK:      net q=0 r=0
// CHECK-NEXT: reg q=0 r=0
// CHECK-NEXT: signed q=0 r=0
// CHECK-NEXT: wide q=0 r=0
// CHECK-NEXT: const q=0 r=0
// CHECK-NEXT: i=0 x=1 m=f0 n=00 w=f n7=00 m9=00
// CHECK-NEXT: i=1 x=1 m=f1 n=00 w=f n7=00 m9=00
// CHECK-NEXT: i=3 x=1 m=f3 n=e3 w=f n7=00 m9=00
// CHECK-NEXT: i=7 x=1 m=00 n=00 w=f n7=00 m9=00
// CHECK-NEXT: i=15 x=0 m=00 n=00 w=1 n7=00 m9=00
// CHECK-NEXT: i=31 x=0 m=00 n=00 w=0 n7=00 m9=00
// CHECK-NOT: {{.}}
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] a = 7, b = 0;
  reg signed [15:0] s = -5, z = 0;
  reg [99:0] wa = 100'h123456789abcdef, wz = 0;
  wire [7:0] q = a / b, r = a % b;
  reg [7:0] x = 8'hff;
  reg [7:0] m [0:3];
  reg [7:0] n [2:6];
  reg [15:0] w = 16'hffff;
  integer i = 0, k;
  initial for (k = 0; k < 4; k = k + 1) m[k] = 8'hf0 + k;
  initial for (k = 2; k <= 6; k = k + 1) n[k] = 8'he0 + k;
  reg divided = 0;
  always @(posedge clock) begin
    if (!divided) begin
      $display("net q=%0d r=%0d", q, r);
      $display("reg q=%0d r=%0d", a / b, a % b);
      $display("signed q=%0d r=%0d", s / z, s % z);
      $display("wide q=%0d r=%0d", wa / wz, wa % wz);
      $display("const q=%0d r=%0d", a / 0, a % 8'd0);
      divided = 1;
    end
    $display("i=%0d x=%b m=%h n=%h w=%h n7=%h m9=%h", i, x[i], m[i], n[i], w[i +: 4], n[7], m[9]);
    i = i * 2 + 1;
    if (i > 40) $finish;
  end
endmodule

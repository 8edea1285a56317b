// $signed()/$unsigned() reach the target as pad selects whose own
// signedness is the cast: it must survive into the emitted Verilog, both as
// a sign extension (widening) and as a signed operand (same width).
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v

// Widening a 16-bit $signed(raw) to 32 bits sign-extends it.
// CHECK: diff = $signed({$signed(__sext_16_32(raw)) - 32'sb{{0+}}101});
// Same width: both operands of the comparison are cast, and the unsigned
// comparison next to it is left alone.
// CHECK-NEXT: __targ_0 = {$signed(a) < $signed(b)};
// CHECK-NEXT: __targ_1 = {a < b};
// $unsigned() of a signed variable stays an unsigned operand.
// CHECK-NEXT: __targ_2 = {$unsigned(s) > 8'b{{0+}}1};
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [31:0] a = 32'hfffffff9, b = 32'd3;
  reg [15:0] raw = 16'hff00;
  reg signed [7:0] s = -8'sd2;
  integer diff;
  always @(posedge clock) begin
    diff = $signed(raw) - 5;
    $display("%0d %0d %0d %0d", $signed(a) < $signed(b), a < b, diff, $unsigned(s) > 8'd1);
    $finish;
  end
endmodule

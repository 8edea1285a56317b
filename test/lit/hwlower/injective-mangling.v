// The frontend's mangling of user names is injective, and no user name
// comes out as one of the names synergy-hwc adds (they all start with `__`):
// a signal called `__clk` or `__task_r` is not the engine's port or task
// register, `a__b` is not the instance signal `a.b`, and `\x+y ` and
// `\begin ` are not `x_y` and `begin_`. Such names used to collide (Verilator
// refused the duplicate declaration, or two signals shared one register);
// now each keeps its own value, on both engines exactly as in vvp.
// REQUIRES: iverilog
// RUN: rm -rf %t && mkdir -p %t
// RUN: iverilog -o %t/tb.vvp %s && vvp -n %t/tb.vvp > %t/vvp.out
// RUN: FileCheck %s --check-prefix=OUT < %t/vvp.out
// RUN: synergy-hwc %s -o %t/tb.eng --emit-verilog %t/tb.v
// RUN: FileCheck %s --check-prefix=V < %t/tb.v
// RUN: %synergy-run --engine software %t/tb.eng > %t/software.out
// RUN: FileCheck %s --check-prefix=OUT < %t/software.out
// RUN: %synergy-run --engine compiled %t/tb.eng > %t/compiled.out
// RUN: FileCheck %s --check-prefix=OUT < %t/compiled.out
// OUT: 13 17 21 15 13 14 15 16 17 18 3

// A plain name stays as it is; any other becomes `_x`, its bytes in hex, `_`.
// V-DAG: reg [7:0] _x5f5f636c6b_;
// V-DAG: reg [7:0] _x5f5f7461736b5f72_;
// V-DAG: reg [7:0] _x615f5f62_;
// V-DAG: reg [7:0] a__b;
// V-DAG: reg [7:0] count;
module holder;
  reg [7:0] b = 8'd3;
endmodule

module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] __clk = 8'd10;
  reg [7:0] __task_r = 8'd11;
  reg [7:0] a__b = 8'd12;
  reg [7:0] _x = 8'd13;
  reg [7:0] x_ = 8'd14;
  reg [7:0] \x+y  = 8'd15;
  reg [7:0] x_y = 8'd16;
  reg [7:0] \begin  = 8'd17;
  reg [7:0] begin_ = 8'd18;
  holder a();
  reg [7:0] count = 0;
  always @(posedge clock) begin
    count <= count + 1;
    __clk <= __clk + 1;
    __task_r <= __task_r + 2;
    a__b <= a__b + 3;
    a.b <= a.b + 4;
    if (count == 3) begin
      $display("%0d %0d %0d %0d %0d %0d %0d %0d %0d %0d %0d", __clk, __task_r, a__b, a.b, _x, x_, \x+y , x_y,
               \begin , begin_, count);
      $finish;
    end
  end
endmodule

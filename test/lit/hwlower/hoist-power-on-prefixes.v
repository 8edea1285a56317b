// hoistPowerOnPrefixes: the leading statements of initial blocks that only
// compute starting values move to the emitted module's `initial` block, so
// they cost no state-machine logic: constants, a counted loop clearing a
// register memory, a case on a task's constant argument (reduced to the arm
// it takes), a constant net (read as its literal), and copies of registers.
// The scan stops for good at the first statement that does not qualify: a
// task, an operator over a register (`y = x + 1`, which synthesis could not
// evaluate at power-on), or a write to a guard variable. Moved registers get
// their power-on value in that block instead of their declaration.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=CORE < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: reg [7:0] x;
// CHECK: reg [7:0] y = 8'd0;
// CHECK: initial begin
// CHECK-DAG: x = 8'd0;
// CHECK-DAG: copy = 8'd0;
// CHECK: x = 8'sb00000111;
// CHECK-NEXT: for (i = {{.*}}) begin
// CHECK-NEXT: mem[i] = 8'sb00000000;
// CHECK-NEXT: end
// CHECK-NEXT: mem[{{.*}}] = 8'b00000011;
// CHECK-NEXT: copy = x;
// CHECK-NEXT: end
// CHECK-NOT: initial

// What stays in the core, in order: the operator over `x`, the display, the
// second initial block with its guard write.
// CORE: __fire_0 = __init;
// CORE: y = {x + 8'b00000001};
// CORE: slow = 1'sb1;
// CORE-NOT: x = 8'sb00000111;
// CORE-NOT: mem[i] = 8'sb00000000;

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] x, y, copy;
  reg [7:0] mem [0:3];
  reg slow;
  integer i;

  task pick(input [1:0] which);
    case (which)
      2'd0: mem[0] = 8'd1;
      2'd1: mem[1] = 8'd3;
      default: mem[2] = 8'd5;
    endcase
  endtask

  initial begin
    x = 7;
    for (i = 0; i < 4; i = i + 1) mem[i] = 0;
    pick(1);
    copy = x;
    y = x + 1;
    $display("%0d %0d %0d", x, y, copy);
  end
  initial slow = 1;
  always @(posedge slow) $display("slow rose");
  always @(posedge clock) begin
    x = x + mem[1] + copy;
    mem[x % 4] = y;
    $display("%0d %0d %0d", x, mem[1], slow);
    if (x > 50) slow = 0;
    if (x > 100) $finish;
  end
endmodule

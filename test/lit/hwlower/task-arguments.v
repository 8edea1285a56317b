// lowerTaskArguments: whole variables are passed by id, other expressions
// through shared argument registers loaded right before the trap, outputs by
// id (with an element register for memories), $time as a placeholder, and
// a whole memory for $readmemh.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.eng
// RUN: FileCheck %s --check-prefix=V < %t.v

// CHECK: state [[A:[0-9]+]] reg 8 0 0 0 1 "tb.a"
// CHECK: state [[MEM:[0-9]+]] reg 8 0 16 0 1 "tb.mem"
// CHECK: state [[T0:[0-9]+]] internal 9 0 0 0 1 "__targ_0"
// CHECK: state [[I0:[0-9]+]] internal 32 0 0 0 1 "__tidx_0"
// CHECK: task 1 "$readmemh" "tb" {{.*}} - 0 0 2
// CHECK-NEXT: arg string - - - 0 0 0 0 "mem.hex"
// CHECK-NEXT: arg value [[MEM]] - - 8 0 1 0 ""
// CHECK-NEXT: task 2 "$display" "tb" {{.*}} - 0 0 5
// CHECK-NEXT: arg string - - - 0 0 0 0 "%m a=%d a+1=%d at %t %s"
// CHECK-NEXT: arg value [[A]] - - 8 0 0 0 ""
// CHECK-NEXT: arg value [[T0]] - - 9 0 0 0 ""
// CHECK-NEXT: arg time - - - 0 0 0 0 "$time"
// CHECK-NEXT: arg string - - - 0 0 0 0 "tab\x09here"
// CHECK-NEXT: task 3 "$fscanf" "tb" {{.*}} 3
// CHECK-NEXT: arg value {{[0-9]+}} - - 32 1 0 0 ""
// CHECK-NEXT: arg string - - - 0 0 0 0 "%h"
// CHECK-NEXT: arg value [[MEM]] - [[I0]] 8 0 1 0 ""

// V: __targ_0 = {{.*}}a{{.*}} + {{.*}};
// V-NEXT: __task_r = 16'd2;
// V: __tidx_0 = {{.*}}a{{.*}};
// V-NEXT: __task_r = 16'd3;
module tb(input wire clock);
  reg [7:0] a;
  reg [7:0] mem [0:15];
  integer fd, n;
  initial $readmemh("mem.hex", mem);
  always @(posedge clock) begin
    $display("%m a=%d a+1=%d at %t %s", a, a + 9'd1, $time, "tab\there");
    n = $fscanf(fd, "%h", mem[a[3:0]]);
  end
endmodule

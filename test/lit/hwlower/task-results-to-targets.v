// writeTaskResultsToTargets: a system function whose result is only copied
// into a whole register of its width returns straight into that register
// (the task's result id is the register's, no __result_k and no copy);
// other uses keep the result register.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.eng
// RUN: FileCheck %s --check-prefix=V < %t.v

// CHECK: state [[C:[0-9]+]] reg 32 1 0 0 1 "tb.c"
// CHECK: state [[FD:[0-9]+]] reg 32 1 0 0 1 "tb.fd"
// CHECK: state [[N:[0-9]+]] reg 32 1 0 0 1 "tb.n"
// CHECK: state [[R0:[0-9]+]] internal 32 1 0 0 1 "__result_
// CHECK: state [[R1:[0-9]+]] internal 32 1 0 0 1 "__result_
// CHECK: state [[R2:[0-9]+]] internal 32 1 0 0 1 "__result_
// CHECK-NEXT: state {{[0-9]+}} internal 1 0 0 0 1 "__prev_clock"
// CHECK: task 1 "$fopen" "tb" {{.*}} [[FD]] 32 1 2
// CHECK: task 2 "$fgetc" "tb" {{.*}} [[C]] 32 1 1
// CHECK: task 3 "$fgetc" "tb" {{.*}} [[R0]] 32 1 1
// CHECK: task 4 "$fscanf" "tb" {{.*}} [[N]] 32 1 3
// CHECK: task 5 "$fscanf" "tb" {{.*}} [[R1]] 32 1 3
// CHECK: task 6 "$feof" "tb" {{.*}} [[R2]] 32 1 1

// V-NOT: fd = {{.*}}__result
// V-NOT: c = {{.*}}__result
// V: narrow = {{.*}}__result_
// V-NOT: n = {{.*}}__result
// V: v = $signed(__result_
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c, n, v;
  reg [7:0] narrow;
  initial fd = $fopen("in.txt", "r");
  always @(posedge clock) begin
    c = $fgetc(fd);
    narrow = $fgetc(fd);
    n = $fscanf(fd, "%d", v);
    v = $fscanf(fd, "%d", v);
    if ($feof(fd)) $finish;
  end
endmodule

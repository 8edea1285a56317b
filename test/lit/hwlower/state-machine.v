// lowerCoreToStateMachine (Fig. 5): a state ends at a trap and at the guard
// of an if/case around a trap; each branch gets a state and a phi state
// rejoins them; a loop with a trap gets a header state and a back edge. A
// result used later in the same tick ($feof after $fscanf) is read from its
// result register in a later state.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// The $fscanf trap, then $feof's trap, then the branch on its result
// ($fopen and $fscanf return straight into fd and n).
// CHECK: __task_r = 16'd2; __state = {{[0-9]+}}'d[[S2:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[S2]]) begin
// CHECK-NEXT: __task_r = 16'd3; __state =
// CHECK: if ({$signed(__result_{{[0-9]+}}) != 32'sb{{0+}}}) __state = {{[0-9]+}}'d[[THEN:[0-9]+]]; else __state = {{[0-9]+}}'d[[HEAD:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[THEN]]) begin
// CHECK: __task_r = 16'd{{[0-9]+}}; __state = {{[0-9]+}}'d[[THEN2:[0-9]+]];
// The else branch is empty: it and the phi state after the if are threaded,
// so both the false branch and the $finish trap go straight to the loop.
// CHECK: if (__task_r == 16'd0 && __state == [[THEN2]]) begin
// CHECK-NEXT: __finishing = 1'b1;
// CHECK-NEXT: __task_r = 16'd{{[0-9]+}}; __state = {{[0-9]+}}'d[[HEAD]];
// The while loop: header, body with a trap, back edge to the header.
// CHECK: if (__task_r == 16'd0 && __state == [[HEAD]]) begin
// CHECK-NEXT: if ({v > 32'sb{{0+}}}) __state = {{[0-9]+}}'d[[BODY:[0-9]+]]; else __state = {{[0-9]+}}'d[[EXIT:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[BODY]]) begin
// CHECK-NEXT: __task_r = 16'd{{[0-9]+}}; __state = {{[0-9]+}}'d[[BODY2:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[BODY2]]) begin
// CHECK-NEXT: v = $signed({v - 32'sb{{0+}}11});
// CHECK-NEXT: __state = {{[0-9]+}}'d[[HEAD]];
// CHECK: if (__task_r == 16'd0 && __state == [[EXIT]]) begin
// A case whose arms trap: one state per arm, all rejoin. The arms' ends, the
// phi state and the end of the process only jump, so each arm's trap resumes
// in the idle state, and needs no `__finishing` check to get there.
// CHECK: case (v)
// CHECK-NEXT: 32'sb{{0+}}1: __state = {{[0-9]+}}'d[[ONE:[0-9]+]];
// `2, 3` is one arm (mergeDuplicateCaseItems).
// CHECK-NEXT: 32'sb{{0+}}10, 32'sb{{0+}}11: __state = {{[0-9]+}}'d[[TWO:[0-9]+]];
// CHECK-NEXT: default: __state =
// CHECK-NEXT: endcase
// CHECK: if (__task_r == 16'd0 && __state == [[ONE]]) begin
// CHECK-NEXT: __task_r = 16'd{{[0-9]+}}; __state = {{[0-9]+}}'d0;
// CHECK-NEXT: end
// CHECK-NEXT: if (__task_r == 16'd0 && __state == [[TWO]]) begin
// CHECK-NEXT: __task_r = 16'd{{[0-9]+}}; __state = {{[0-9]+}}'d0;
// CHECK-NEXT: end

// ENG: task 2 "$fscanf" "tb" {{.*}} 3
// ENG-NEXT: arg value {{[0-9]+}} - - 32 1 0 0 ""
// ENG-NEXT: arg string - - - 0 0 0 0 "%d"
// ENG-NEXT: arg value {{[0-9]+}} - - 32 1 1 0 ""
// ENG-NEXT: task 3 "$feof" "tb" {{.*}} {{[0-9]+}} 32 1 1

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, n, v;
  initial fd = $fopen("two-numbers.txt", "r");
  always @(posedge clock) begin
    n = $fscanf(fd, "%d", v);
    if ($feof(fd)) begin
      $display("done");
      $finish;
    end
    while (v > 0) begin
      $display("v=%0d", v);
      v = v - 3;
    end
    case (v)
      1: $display("one");
      2, 3: $display("two or three");
      default: $display("other");
    endcase
  end
endmodule

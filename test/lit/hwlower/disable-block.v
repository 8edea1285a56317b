// `disable` of an enclosing named block is a jump to the state after the
// block: the disabling state ends there, and the block's end is a state
// boundary that the fall-through path (here the loop's exit, threaded past
// the empty state that ended the block) reaches too.
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// CHECK: i = 32'sb{{0+}};
// CHECK-NEXT: __state = {{[0-9]+}}'d[[HEAD:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[HEAD]]) begin
// CHECK-NEXT: if ({i < 32'sb{{0*}}10000}) __state = {{[0-9]+}}'d[[BODY:[0-9]+]]; else __state = {{[0-9]+}}'d[[AFTER:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[BODY]]) begin
// CHECK-NEXT: if ({(($unsigned(i) < 64'd16) ? mem[i] : 8'd0) == x}) __state = {{[0-9]+}}'d[[HIT:[0-9]+]]; else __state = {{[0-9]+}}'d[[MISS:[0-9]+]];
// CHECK: if (__task_r == 16'd0 && __state == [[HIT]]) begin
// CHECK-NEXT: found = i;
// CHECK-NEXT: __state = {{[0-9]+}}'d[[AFTER]];
// CHECK: if (__task_r == 16'd0 && __state == [[MISS]]) begin
// CHECK-NEXT: i = $signed({i + 32'sb{{0*}}1});
// CHECK-NEXT: __state = {{[0-9]+}}'d[[HEAD]];
// CHECK: if (__task_r == 16'd0 && __state == [[AFTER]]) begin
// CHECK-NEXT: __task_r = 16'd{{[0-9]+}};

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg [7:0] mem [0:15];
  reg [7:0] x = 0;
  integer i, found;
  always @(posedge clock) begin
    x = x + 1;
    found = -1;
    begin : search
      for (i = 0; i < 16; i = i + 1)
        if (mem[i] == x) begin
          found = i;
          disable search;
        end
    end
    $display("%0d", found);
  end
endmodule

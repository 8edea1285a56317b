// mergeDuplicateCaseItems: Icarus gives `1, 3: body` as two items with a
// copy of the body each; adjacent copies become one item again, so the trap
// in them gets one task and one set of states. Items 0 and 2 have the same
// body too but item 1 lies between them: they stay apart (first match wins).
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng

// CHECK: case (phase)
// CHECK-NEXT: 2'b00: __state = [[W:[0-9]+]]'d{{[0-9]+}};
// CHECK-NEXT: 2'b01, 2'b11: __state = [[W]]'d{{[0-9]+}};
// CHECK-NEXT: 2'b10: __state = [[W]]'d{{[0-9]+}};
// CHECK-NEXT: default: __state =
// CHECK-NEXT: endcase

// One $fgetc for items 0 and 2 each, one for the merged items 1 and 3.
// ENG: task 2 "$fgetc"
// ENG: task 3 "$fgetc"
// ENG: task 4 "$fgetc"
// ENG-NOT: "$fgetc"
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c, n = 0;
  reg [1:0] phase = 0;
  initial fd = $fopen("in.txt", "r");
  always @(posedge clock) begin
    case (phase)
      2'd0: c = $fgetc(fd);
      2'd1, 2'd3: begin c = $fgetc(fd); n = n + c; end
      2'd2: c = $fgetc(fd);
    endcase
    phase = phase + 1;
  end
endmodule

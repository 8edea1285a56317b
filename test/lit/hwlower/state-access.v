// assignStateIds + the state-access port: every stateful variable has an id;
// reads are combinational, writes take one __clk cycle and do nothing else;
// a memory is addressed by __sa_index and a wide variable by __sa_word
// (a constant part-select per 64-bit word, no shifter); the id cases
// decode only the 3 bits that the 7 ids need. A
// net has a read arm only when a task reads it (`wshown`, not `w`).
// RUN: synergy-hwc %s --emit-verilog %t.v -o %t.eng
// RUN: FileCheck %s < %t.v
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: yosys -q -p "read_verilog -sv %t.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// ENG: state 0 input 1 0 0 0 1 "tb.clock" "clock"
// ENG-NEXT: state 1 reg 16 1 0 0 1 "tb.s" "s"
// ENG-NEXT: state 2 reg 8 0 4 0 1 "tb.tbl" "tbl"
// ENG-NEXT: state 3 wire 8 0 0 0 0 "tb.w" "w"
// ENG-NEXT: state 4 reg 130 0 0 0 1 "tb.wide" "wide"
// ENG-NEXT: state 5 reg 100 0 2 0 1 "tb.words" "words"
// ENG-NEXT: state 6 wire 8 0 0 0 0 "tb.wshown" "wshown"

// CHECK: always @* begin
// CHECK: 3'd1: __sa_rdata = {s};
// CHECK-NEXT: 3'd2: __sa_rdata = {tbl[__sa_index]};
// CHECK-NEXT: 3'd4: case (__sa_word)
// CHECK-NEXT: 16'd0: __sa_rdata = wide[63:0];
// CHECK-NEXT: 16'd1: __sa_rdata = wide[127:64];
// CHECK-NEXT: 16'd2: __sa_rdata = wide[129:128];
// CHECK-NEXT: default: __sa_rdata = 64'd0;
// CHECK-NEXT: endcase
// CHECK-NEXT: 3'd5: case (__sa_word)
// CHECK-NEXT: 16'd0: __sa_rdata = words[__sa_index][63:0];
// CHECK-NEXT: 16'd1: __sa_rdata = words[__sa_index][99:64];
// CHECK: 3'd6: __sa_rdata = {wshown};
// `tbl`, written at one place of the design, shares one write port with its
// state-access write (shareMemoryWritePorts).
// CHECK: always @(posedge __clk) begin
// CHECK-NEXT: [[PORT:__memw[0-9]+]]_en = 1'b0; [[PORT]]_index = __sa_index; [[PORT]]_value = __sa_wdata[7:0];
// CHECK-NEXT: if (__sa_we) begin
// CHECK-NEXT: case (__sa_id[2:0])
// CHECK-NEXT: 3'd0: clock = __sa_wdata[0:0];
// CHECK-NEXT: 3'd1: s = __sa_wdata[15:0];
// CHECK-NEXT: 3'd2: [[PORT]]_en = 1'b1;
// CHECK-NOT: 3'd3:
// CHECK-NEXT: 3'd4: case (__sa_word)
// CHECK-NEXT: 16'd0: wide[63:0] = __sa_wdata[63:0];
// CHECK-NEXT: 16'd1: wide[127:64] = __sa_wdata[63:0];
// CHECK-NEXT: 16'd2: wide[129:128] = __sa_wdata[1:0];
// CHECK-NEXT: default: ;
// CHECK-NEXT: endcase
// CHECK-NEXT: 3'd5: case (__sa_word)
// CHECK-NEXT: 16'd0: words[__sa_index][63:0] = __sa_wdata[63:0];
// CHECK-NEXT: 16'd1: words[__sa_index][99:64] = __sa_wdata[35:0];
// CHECK: default: ;

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module tb(input wire clock);
  reg signed [15:0] s;
  reg [7:0] tbl [0:3];
  reg [129:0] wide;
  reg [99:0] words [0:1];
  wire [7:0] w = s[7:0] + tbl[1];
  wire [7:0] wshown = w ^ 8'h5a;
  always @(posedge clock) begin
    $display("%0d", wshown);
    s = s + 1;
    wide = {wide[128:0], wide[129]};
    tbl[s[1:0]] = w;
    words[s[0]] = {words[~s[0]], wide[0]};
  end
endmodule

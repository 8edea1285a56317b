// Memories whose state-access write shares one port with the design's write
// (shareMemoryWritePorts): `regs` written by NBAs from several case arms,
// `hist` by one blocking write that only the other branch reads. `scratch`
// is read right after its write in the same tick and keeps its own write.
// The split run restores all three through the state-access port.
// SAVE-AT-TICK: 11 (the split run in test/verilog/run_differential.py --save-restart)
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [15:0] regs [0:7];
  reg [7:0] hist [0:3];
  reg [7:0] scratch [0:3];
  reg [3:0] pc = 0;
  integer k, ticks = 0;
  initial begin
    for (k = 0; k < 8; k = k + 1) regs[k] = k;
    for (k = 0; k < 4; k = k + 1) hist[k] = 8'h10 + k;
    for (k = 0; k < 4; k = k + 1) scratch[k] = 0;
  end
  always @(posedge clock) begin
    ticks = ticks + 1;
    case (pc[1:0])
      2'd0: regs[pc[2:0]] <= pc * 3;
      2'd1: regs[pc[2:0] + 1] <= regs[pc[2:0]] + 1;
      2'd2: regs[3'd7 - pc[2:0]] <= regs[pc[2:0]] ^ 16'h00ff;
      default: ;
    endcase
    scratch[pc[1:0]] = regs[pc[2:0]][7:0] + hist[pc[1:0]];
    if (pc[0]) hist[pc[1:0]] = hist[pc[1:0]] + pc;
    else $display("hist %0d: %0d", pc[1:0], hist[pc[1:0]]);
    $display("%0d: pc=%0d regs=%0d scratch=%0d", ticks, pc, regs[pc[2:0]], scratch[pc[1:0]]);
    pc <= pc + 1;
    if (ticks == 24) begin
      for (k = 0; k < 8; k = k + 1) $display("regs[%0d]=%0d", k, regs[k]);
      $finish;
    end
  end
endmodule

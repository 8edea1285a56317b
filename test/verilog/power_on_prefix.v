// Initial blocks whose leading statements only compute starting values (a
// task's constant argument selecting a case arm, a register file cleared in
// a loop, copies of ROM words and registers) run at power-on in the engine
// (hoistPowerOnPrefixes); what follows the first task, and a later initial
// block, run in the first pass as before. The design then keeps changing
// everything the prefix set, so a wrong starting value shows in the output.
// SAVE-AT-TICK: 9 (the split run in test/verilog/run_differential.py --save-restart)
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [15:0] table_rom [0:7];
  reg [15:0] regs [0:7];
  reg [15:0] a, b, acc;
  reg [1:0] mode;
  reg [15:0] start;
  reg [7:0] after_task = 8'd9;
  integer i, k, ticks = 0;

  task load(input [1:0] which, input [15:0] base);
    integer j;
    begin
      for (j = 0; j < 8; j = j + 1)
        case (which)
          2'd0: regs[j] = table_rom[j];
          2'd1: regs[j] = base;
          default: regs[j] = 16'hffff;
        endcase
      a = base;
      mode = which;
    end
  endtask

  initial begin
    for (i = 0; i < 8; i = i + 1) table_rom[i] = 16'h1111 * (i + 1);
    start = 16'h00a5;
    load(1, 16'h0042);
    b = a;
    acc = 0;
    $display("start a=%h b=%h mode=%0d after_task=%0d", a, b, mode, after_task);
    after_task = after_task + 1;
  end
  initial begin
    for (k = 0; k < 8; k = k + 1) acc = acc + regs[k];
    $display("second block acc=%h", acc);
  end

  always @(posedge clock) begin
    ticks = ticks + 1;
    regs[ticks % 8] = regs[ticks % 8] + table_rom[ticks % 8] + start;
    a = a + b;
    mode = mode + 1;
    after_task = after_task + 2;
    $display("%0d: a=%h regs=%h %h mode=%0d after=%0d i=%0d", ticks, a, regs[ticks % 8], regs[(ticks + 3) % 8],
             mode, after_task, i);
    if (ticks == 16) $finish;
  end
endmodule

// A single-cycle MIPS32 subset (add, sub, slt, addi, lw, sw, beq, bne, j,
// syscall as halt) running a bubble sort. Instruction and data memories are
// loaded with $readmemh; the testbench prints the array before and after.
// SAVE-AT-TICK: 300 (the split run in test/verilog/run_differential.py --save-restart)
module mips32 (input wire clock, output reg halted);
  reg [31:0] imem [0:63];
  reg [31:0] dmem [0:15];
  reg [31:0] regs [0:31];
  reg [31:0] pc;
  integer r;

  wire [31:0] instr = imem[pc[7:2]];
  wire [5:0] opcode = instr[31:26];
  wire [4:0] rs = instr[25:21];
  wire [4:0] rt = instr[20:16];
  wire [4:0] rd = instr[15:11];
  wire [5:0] funct = instr[5:0];
  wire [31:0] imm = {{16{instr[15]}}, instr[15:0]};
  wire [31:0] a = regs[rs];
  wire [31:0] b = regs[rt];
  wire [31:0] address = a + imm;
  wire [31:0] next_pc = pc + 4;

  initial begin
    pc = 0;
    halted = 0;
    for (r = 0; r < 32; r = r + 1) regs[r] = 0;
    $readmemh("program.hex", imem, 0, 17);
    $readmemh("data.hex", dmem, 0, 7);
  end

  always @(posedge clock) if (!halted) begin
    pc <= next_pc;
    case (opcode)
      6'h00:
        case (funct)
          6'h20: if (rd != 0) regs[rd] <= a + b;
          6'h22: if (rd != 0) regs[rd] <= a - b;
          6'h2a: if (rd != 0) regs[rd] <= $signed(a) < $signed(b) ? 1 : 0;
          6'h0c: begin halted <= 1; pc <= pc; end
          default: ;
        endcase
      6'h08: if (rt != 0) regs[rt] <= a + imm;
      6'h23: if (rt != 0) regs[rt] <= dmem[address[5:2]];
      6'h2b: dmem[address[5:2]] <= b;
      6'h04: if (a == b) pc <= next_pc + (imm << 2);
      6'h05: if (a != b) pc <= next_pc + (imm << 2);
      6'h02: pc <= {next_pc[31:28], instr[25:0], 2'b00};
      default: ;
    endcase
  end
endmodule

module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  wire halted;
  mips32 cpu (.clock(clock), .halted(halted));
  integer i, cycles = 0;
  always @(posedge clock) begin
    // The CPU's memory writes are non-blocking, so this tick still sees the
    // loaded array.
    if (cycles == 0) begin
      $write("before:");
      for (i = 0; i < 8; i = i + 1) $write(" %0d", $signed(cpu.dmem[i]));
      $display("");
    end
    cycles = cycles + 1;
    if (halted) begin
      $write("after: ");
      for (i = 0; i < 8; i = i + 1) $write(" %0d", $signed(cpu.dmem[i]));
      $display("");
      $display("halted after %0d cycles", cycles);
      $finish;
    end else if (cycles == 5000) begin
      $display("no halt");
      $finish;
    end
  end
endmodule

// findIdleNegedge + the open-loop controller: when nothing fires at the
// clock's falling edge, the tick boundary runs that tick on the spot (edge
// history only) and goes on to the rising edge in the same native cycle. A
// design with a negedge process, or with an event on a net that follows
// the clock, keeps one tick per cycle.
// RUN: synergy-hwc -top idle %s --emit-verilog %t.idle.v
// RUN: FileCheck %s --check-prefix=IDLE < %t.idle.v
// RUN: synergy-hwc -top falling %s --emit-verilog %t.falling.v
// RUN: FileCheck %s --check-prefix=BUSY < %t.falling.v
// RUN: synergy-hwc -top derived %s --emit-verilog %t.derived.v
// RUN: FileCheck %s --check-prefix=BUSY < %t.derived.v
// RUN: yosys -q -p "read_verilog -sv %t.idle.v; synth -top synergy_engine; tee -q -o %t.stat stat"
// RUN: FileCheck %s --check-prefix=YOSYS < %t.stat
// REQUIRES: yosys

// IDLE: clock = ~clock;
// IDLE-NEXT: __ol_ticks = __ol_ticks + 32'd1;
// IDLE-NEXT: if (!clock && __ol_ticks != __open_loop_n) begin
// IDLE-NEXT: __pos_clock = clock & ~__prev_clock;
// IDLE: __prev_clock = clock;
// IDLE: clock = ~clock;
// IDLE-NEXT: __ol_ticks = __ol_ticks + 32'd1;
// IDLE-NEXT: end

// BUSY: clock = ~clock;
// BUSY-NEXT: __ol_ticks = __ol_ticks + 32'd1;
// BUSY-NOT: if (!clock
// BUSY: end

// YOSYS-NOT: Number of processes: {{ *[1-9]}}
// YOSYS: Number of cells:
module idle;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] n = 0;
  reg [8:0] twice;
  always @* twice = n + n;
  always @(posedge clock) begin
    n <= n + 1;
    if (n == 8'd9) $display("%0d", twice);
  end
endmodule

module falling;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] n = 0;
  always @(posedge clock) n <= n + 1;
  always @(negedge clock) $display("%0d", n);
endmodule

module derived;
  reg clock = 0;
  always #1 clock = ~clock;
  wire inverted = ~clock;
  reg [7:0] n = 0;
  always @(posedge inverted) n <= n + 1;
endmodule

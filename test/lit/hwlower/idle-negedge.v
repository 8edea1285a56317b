// findIdleNegedge + the open-loop controller: when nothing fires at the
// clock's falling edge, the tick boundary runs that tick on the spot (edge
// history only) and goes on to the rising edge in the same native cycle. A
// design with a negedge process, or with an event on a net that follows
// the clock, keeps one tick per cycle. The idle tick changes only the
// clock's history, and the ticks left go down by 2 instead of 1.
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
// IDLE-NEXT: __ol_two_ticks = !clock && __ol_left != 32'd1;
// IDLE-NEXT: __ol_left = __ol_left - {30'd0, __ol_two_ticks, !__ol_two_ticks};
// IDLE-NEXT: if (__ol_two_ticks) begin
// IDLE-NEXT: __prev_clock = clock;
// IDLE-NEXT: clock = ~clock;
// IDLE-NEXT: end

// BUSY: clock = ~clock;
// BUSY-NEXT: __ol_left = __ol_left - 32'd1;
// BUSY-NOT: __ol_two_ticks
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

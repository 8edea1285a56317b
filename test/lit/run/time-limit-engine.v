// An engine that never calls $finish ends at --time-limit with a message and
// status 134, whether it spins in open loop (no task for ticks on end) or
// traps into the host every tick ($display), and also with open loop off.
// --max-memory refuses a design whose state (widths x depths: 4096 32-bit
// words, a few registers and the compiler's own state variables, which vary
// with the lowering) is larger, before building or running it.
// `timeout 120` only keeps a broken build from hanging the suite; no test
// checks how long anything took.
// REQUIRES: iverilog
// RUN: %synergy-cc %s -o %t.eng
// RUN: sh -c 'timeout 120 %synergy-run --engine compiled --time-limit 0.3 %t.eng; echo "exit=$?"' > %t.quiet 2>&1
// RUN: FileCheck %s --check-prefix=LIMIT < %t.quiet
// RUN: sh -c 'timeout 120 %synergy-run --engine compiled --time-limit 0.3 %t.eng +chatty; echo "exit=$?"' > %t.chatty 2>&1
// RUN: FileCheck %s --check-prefixes=CHATTY,LIMIT < %t.chatty
// RUN: sh -c 'timeout 120 %synergy-run --engine compiled --no-open-loop --time-limit 0.3 %t.eng; echo "exit=$?"' > %t.host 2>&1
// RUN: FileCheck %s --check-prefix=LIMIT < %t.host
// CHATTY: tick 1
// LIMIT: {{.*}}.eng: time limit exceeded after {{[0-9]+}} ticks (--time-limit)
// LIMIT-NEXT: exit=134
//
// RUN: sh -c '%synergy-run --engine compiled --max-memory 16K %t.eng; echo "exit=$?"' > %t.state 2>&1
// RUN: FileCheck %s --check-prefix=STATE --implicit-check-not=tick < %t.state
// STATE: synergy-run: error: {{.*}}.eng: the design's state needs {{16[0-9][0-9][0-9]}} bytes, more than --max-memory (16384 bytes)
// STATE-NEXT: exit=2
// RUN: sh -c 'timeout 120 %synergy-run --engine compiled --max-memory 17K --time-limit 0.2 %t.eng; echo "exit=$?"' > %t.fits 2>&1
// RUN: FileCheck %s --check-prefix=LIMIT < %t.fits
module spin;
  reg clk = 0;
  reg [31:0] count = 0;
  reg [31:0] history [0:4095];
  reg chatty = 0;
  initial chatty = $test$plusargs("chatty");
  always #1 clk = ~clk;
  always @(posedge clk) begin
    count <= count + 1;
    history[count[11:0]] <= count;
    if (chatty) $display("tick %0d", count + history[count[11:0] - 1]);
  end
endmodule

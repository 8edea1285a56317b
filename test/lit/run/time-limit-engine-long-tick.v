// A tick that runs on past --time-limit (a long loop inside one evaluation,
// so the host never gets to check the clock between ticks) is ended by the
// engine runner's watchdog with a message and status 134; the $display after
// the loop never runs.
// `timeout 120` only keeps a broken build from hanging the suite; no test
// checks how long anything took.
// REQUIRES: iverilog
// RUN: %synergy-cc %s -o %t.eng
// RUN: sh -c 'timeout 120 %synergy-run --engine compiled --time-limit 0.3 %t.eng; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s --implicit-check-not=finished < %t.out
// CHECK: {{.*}}.eng: time limit exceeded in the middle of a tick (--time-limit)
// CHECK-NEXT: exit=134
module long_tick;
  reg [63:0] i;
  reg [31:0] mem [0:1023];
  initial begin
    for (i = 0; i < 64'hffffffffffff; i = i + 1) mem[i[9:0]] = mem[i[9:0] * 7] + i[31:0];
    $display("finished %0d", mem[5]);
  end
endmodule

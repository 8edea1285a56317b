// A loop inside one evaluation of an engine keeps the host from all of its
// checks between ticks, and the host cannot prove that a loop in an
// untrusted .eng ends (synergy-cc itself emits `for` and `while` loops), so
// the engine runner's watchdog (runtime/engine/EvaluationWatchdog.h) bounds
// every call into the engine: by default after 10 s, sooner with
// --eval-limit, with a message naming the file and status 134, and nothing
// the design would print after the loop appears.
// This design's loop would run for days; the others are forged from real
// engines: an always block given a `for` whose step never reaches its
// bound, and a function whose `while` never ends, each run on both engines.
// The compiled engine keeps such a loop a loop (EngineBuilder.cpp builds the
// model with -fno-finite-loops; without it clang deleted the loop and the
// rest of its block, and the run spun between host and engine unstopped).
// `timeout` only keeps a broken build from hanging the suite; no test checks
// how long anything took.
// REQUIRES: iverilog
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc %s -o %t/long-loop.eng
// RUN: sh -c 'timeout 600 %synergy-run --engine compiled --eval-limit 0.5 %t/long-loop.eng; echo "exit status $?"' > %t/limit.out 2>&1
// RUN: FileCheck %s --check-prefix=LIMIT --implicit-check-not=finished < %t/limit.out
// RUN: sh -c 'timeout 600 %synergy-run --engine compiled %t/long-loop.eng; echo "exit status $?"' > %t/default.out 2>&1
// RUN: FileCheck %s --check-prefix=DEFAULT --implicit-check-not=finished < %t/default.out
// LIMIT: {{.*}}long-loop.eng: error: the engine ran for 0.5 s inside one evaluation without returning (a loop that never ends?); stopped (--eval-limit)
// LIMIT-NEXT: exit status 134
// DEFAULT: {{.*}}long-loop.eng: error: the engine ran for 10 s inside one evaluation without returning (a loop that never ends?); stopped (--eval-limit)
// DEFAULT-NEXT: exit status 134
//
// RUN: %synergy-cc %S/Inputs/counter.v -o %t/good.eng
// RUN: python3 %S/Inputs/edit-eng.py %t/good.eng %t/endless-for.eng '  always @(posedge __clk) begin\n' '  always @(posedge __clk) begin\n    for (count = 8\x27d0; count < 8\x27d200; count = count & 8\x27d7) begin\n      __fire_0 = !__fire_0;\n    end\n'
// RUN: sh -c 'timeout 600 %synergy-run --engine compiled --eval-limit 0.5 %t/endless-for.eng; echo "exit status $?"' > %t/compiled-for.out 2>&1
// RUN: FileCheck %s --check-prefix=FOR --implicit-check-not=count < %t/compiled-for.out
// RUN: sh -c 'timeout 600 %synergy-run --engine software --eval-limit 0.5 %t/endless-for.eng; echo "exit status $?"' > %t/software-for.out 2>&1
// RUN: FileCheck %s --check-prefix=FOR --implicit-check-not=count < %t/software-for.out
// FOR: {{.*}}endless-for.eng: error: the engine ran for 0.5 s inside one evaluation without returning (a loop that never ends?); stopped (--eval-limit)
// FOR-NEXT: exit status 134
//
// A function's loop is emitted as a `while` in the function body; the real
// design prints what it returns, the forged one never returns.
// RUN: %synergy-cc %S/Inputs/settle-function.v -o %t/settle.eng
// RUN: %synergy-run --engine software %t/settle.eng | FileCheck %s --check-prefix=SETTLE
// SETTLE: count 3 settled at 100
// RUN: python3 %S/Inputs/edit-eng.py %t/settle.eng %t/endless-while.eng 'settle__k = {settle__k + 8\x27b00000001};' 'settle__k = {settle__k & 8\x27b00000001};'
// RUN: sh -c 'timeout 600 %synergy-run --engine compiled --eval-limit 0.5 %t/endless-while.eng; echo "exit status $?"' > %t/compiled-while.out 2>&1
// RUN: FileCheck %s --check-prefix=WHILE --implicit-check-not=settled < %t/compiled-while.out
// RUN: sh -c 'timeout 600 %synergy-run --engine software --eval-limit 0.5 %t/endless-while.eng; echo "exit status $?"' > %t/software-while.out 2>&1
// RUN: FileCheck %s --check-prefix=WHILE --implicit-check-not=settled < %t/software-while.out
// WHILE: {{.*}}endless-while.eng: error: the engine ran for 0.5 s inside one evaluation without returning (a loop that never ends?); stopped (--eval-limit)
// WHILE-NEXT: exit status 134
//
// The software engine runs under the same watchdog, its power-on blocks
// included.
// RUN: sh -c 'timeout 600 %synergy-run --engine software --eval-limit 0.5 %t/long-loop.eng; echo "exit status $?"' > %t/software.out 2>&1
// RUN: FileCheck %s --check-prefix=LIMIT --implicit-check-not=finished < %t/software.out
//
// A bad value is refused before anything runs.
// RUN: sh -c '%synergy-run --engine compiled --eval-limit soon %t/good.eng; echo "exit status $?"' 2>&1 | FileCheck %s --check-prefix=BAD-VALUE
// BAD-VALUE: synergy-run: error: --eval-limit
// BAD-VALUE: exit status 2
module long_loop;
  reg [63:0] i;
  reg [31:0] mem [0:1023];
  initial begin
    for (i = 0; i < 64'hffffffffffff; i = i + 1) mem[i[9:0]] = mem[i[9:0] * 7] + i[31:0];
    $display("finished %0d", mem[5]);
  end
endmodule

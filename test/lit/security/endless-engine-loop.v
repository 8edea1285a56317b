// A loop inside one evaluation of an engine keeps the host from all of its
// checks between ticks, and the host cannot prove that a loop in an
// untrusted .eng ends (synergy-cc itself emits `for` and `while` loops), so
// the engine runner's watchdog (runtime/engine/EvaluationWatchdog.h) bounds
// every call into the engine: by default after 10 s, sooner with
// --eval-limit, with a message naming the file and status 134, and nothing
// the design would print after the loop appears.
// This design's loop would run for days; the second engine is forged from a
// real one with a `for` whose step never reaches its bound, run on the
// software engine.
// `timeout` only keeps a broken build from hanging the suite; no test checks
// how long anything took.
// REQUIRES: iverilog
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc %s -o %t/long-loop.eng
// RUN: sh -c 'timeout 600 %synergy-run --eval-limit 0.5 %t/long-loop.eng; echo "exit status $?"' > %t/limit.out 2>&1
// RUN: FileCheck %s --check-prefix=LIMIT --implicit-check-not=finished < %t/limit.out
// RUN: sh -c 'timeout 600 %synergy-run %t/long-loop.eng; echo "exit status $?"' > %t/default.out 2>&1
// RUN: FileCheck %s --check-prefix=DEFAULT --implicit-check-not=finished < %t/default.out
// LIMIT: {{.*}}long-loop.eng: error: the engine ran for 0.5 s inside one evaluation without returning (a loop that never ends?); stopped (--eval-limit)
// LIMIT-NEXT: exit status 134
// DEFAULT: {{.*}}long-loop.eng: error: the engine ran for 10 s inside one evaluation without returning (a loop that never ends?); stopped (--eval-limit)
// DEFAULT-NEXT: exit status 134
//
// RUN: %synergy-cc %S/Inputs/counter.v -o %t/good.eng
// RUN: python3 %S/Inputs/edit-eng.py %t/good.eng %t/endless-for.eng '  always @(posedge __clk) begin\n' '  always @(posedge __clk) begin\n    for (count = 8\x27d0; count < 8\x27d200; count = count & 8\x27d7) begin\n      __fire_0 = !__fire_0;\n    end\n'
// FOR: {{.*}}endless-for.eng: error: the engine ran for 0.5 s inside one evaluation without returning (a loop that never ends?); stopped (--eval-limit)
// FOR-NEXT: exit status 134
//
// The software engine runs under the same watchdog, its power-on blocks
// included. (The compiled engine built from this forged `for` is not yet
// stopped by the watchdog; that gap is still open.)
// RUN: sh -c 'timeout 600 %synergy-run --engine software --eval-limit 0.5 %t/long-loop.eng; echo "exit status $?"' > %t/software.out 2>&1
// RUN: FileCheck %s --check-prefix=LIMIT --implicit-check-not=finished < %t/software.out
// RUN: sh -c 'timeout 600 %synergy-run --engine software --eval-limit 0.5 %t/endless-for.eng; echo "exit status $?"' > %t/software-for.out 2>&1
// RUN: FileCheck %s --check-prefix=FOR --implicit-check-not=count < %t/software-for.out
//
// A bad value is refused before anything runs.
// RUN: sh -c '%synergy-run --eval-limit soon %t/good.eng; echo "exit status $?"' 2>&1 | FileCheck %s --check-prefix=BAD-VALUE
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

// Without --engine a design runs as under --engine auto. The first run with
// no compiled engine in the cache starts on the software engine at once (its
// stats line says so, and that the build was left detached; its timeline
// ends on software) and prints what vvp prints. Once that build is over, the
// next run starts on the compiled engine (its timeline never says software),
// with the same output. The cache is the test's own, so that no other test's
// build takes the slots the detached build needs (it waits for one only
// while its run goes on). No check depends on how fast anything ran.
// REQUIRES: iverilog
// RUN: iverilog -o %t.vvp %s && vvp -n %t.vvp > %t.vvp.out
// RUN: %synergy-cc %s -o %t.eng
// RUN: python3 %S/Inputs/private-engine-cache.py %t.cache
// RUN: env SYNERGY_CACHE_DIR=%t.cache SYNERGY_ENGINE_STATS=1 %synergy-run --timeline %t.first.csv %t.eng > %t.first.out 2> %t.first.stats
// RUN: diff %t.vvp.out %t.first.out
// RUN: FileCheck %s --check-prefix=FIRST < %t.first.stats
// FIRST: synergy-engine-stats ticks=4002 tasks=4 seconds={{[0-9.]+}} engine=software build=detached build-pid={{[0-9]+$}}
// RUN: python3 %S/Inputs/check-timeline.py %t.first.csv %t.first.stats | FileCheck %s --check-prefix=FIRST-TIMELINE
// FIRST-TIMELINE: rows: monotone
// FIRST-TIMELINE-NEXT: last row: ticks=4002 tasks=4 engine=software
//
// RUN: python3 %S/Inputs/detached-build.py wait %t.first.stats | FileCheck %s --check-prefix=WAIT
// WAIT: build finished
// RUN: env SYNERGY_CACHE_DIR=%t.cache SYNERGY_ENGINE_STATS=1 %synergy-run --timeline %t.second.csv %t.eng > %t.second.out 2> %t.second.stats
// RUN: diff %t.vvp.out %t.second.out
// RUN: FileCheck %s --check-prefix=SECOND < %t.second.stats
// SECOND: synergy-engine-stats ticks=4002 tasks=4 seconds={{[0-9.]+}} engine=compiled{{$}}
// RUN: python3 %S/Inputs/check-timeline.py %t.second.csv %t.second.stats | FileCheck %s --check-prefix=SECOND-TIMELINE
// SECOND-TIMELINE: rows: monotone
// SECOND-TIMELINE-NEXT: last row: ticks=4002 tasks=4 engine=compiled
// RUN: FileCheck %s --check-prefix=NO-SOFTWARE < %t.second.csv
// NO-SOFTWARE: time_s,ticks,ticks_per_s,tasks,tasks_per_s,engine
// NO-SOFTWARE-NOT: software
module default_engine;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [31:0] count = 0;
  always @(posedge clock) begin
    if (count % 1000 == 0) $display("count=%0d", count);
    count <= count + 1;
    if (count == 2000) $finish;
  end
endmodule

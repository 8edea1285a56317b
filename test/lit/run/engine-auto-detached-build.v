// A cold `--engine auto` run does not wait for the compiled engine's build:
// the design finishes on the software engine, and the run exits while the
// build, a detached process of its own, is still going (the stats line says
// build=detached, which the run can only print when it ended first). A
// second run started meanwhile does the same; its build waits for the
// first one (the design's lock) only while its run goes on. Once both are
// over, the cache holds an engine that loads: the next run starts on the
// compiled engine and prints the same output. The cache is the test's own
// (holding Verilator's runtime objects), so that no other test's build
// takes the slot the first build needs. A build killed half way (its whole
// process group) leaves no entry that is taken for an engine: the next run
// in that cache starts on the software engine and builds again. No check
// depends on how fast anything ran; only the order of events is observed.
// REQUIRES: iverilog
// RUN: %synergy-cc %s -o %t.eng
// RUN: python3 %S/Inputs/private-engine-cache.py %t.own
// RUN: env SYNERGY_CACHE_DIR=%t.own SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.first.out 2> %t.first.stats
// RUN: FileCheck %s --check-prefix=OUTPUT < %t.first.out
// RUN: FileCheck %s --check-prefix=DETACHED < %t.first.stats
// OUTPUT: count=9
// OUTPUT-EMPTY:
// DETACHED: synergy-engine-stats ticks=20 tasks=2 seconds={{[0-9.]+}} engine=software build=detached build-pid={{[0-9]+$}}
// DETACHED-EMPTY:
//
// RUN: env SYNERGY_CACHE_DIR=%t.own SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.concurrent.out 2> %t.concurrent.stats
// RUN: diff %t.first.out %t.concurrent.out
// RUN: FileCheck %s --check-prefix=DETACHED < %t.concurrent.stats
// RUN: python3 %S/Inputs/detached-build.py wait %t.first.stats | FileCheck %s --check-prefix=WAIT
// RUN: python3 %S/Inputs/detached-build.py wait %t.concurrent.stats | FileCheck %s --check-prefix=WAIT
// WAIT: build finished
// RUN: env SYNERGY_CACHE_DIR=%t.own SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.second.out 2> %t.second.stats
// RUN: diff %t.first.out %t.second.out
// RUN: FileCheck %s --check-prefix=CACHED < %t.second.stats
// CACHED: synergy-engine-stats ticks=20 tasks=2 seconds={{[0-9.]+}} engine=compiled{{$}}
// CACHED-EMPTY:
//
// RUN: python3 %S/Inputs/private-engine-cache.py %t.cache
// RUN: env SYNERGY_CACHE_DIR=%t.cache SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.killed.out 2> %t.killed.stats
// RUN: diff %t.first.out %t.killed.out
// RUN: FileCheck %s --check-prefix=DETACHED < %t.killed.stats
// RUN: python3 %S/Inputs/detached-build.py kill %t.killed.stats | FileCheck %s --check-prefix=KILL
// KILL: build killed
// RUN: env SYNERGY_CACHE_DIR=%t.cache SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.after.out 2> %t.after.stats
// RUN: diff %t.first.out %t.after.out
// RUN: FileCheck %s --check-prefix=DETACHED < %t.after.stats
// RUN: python3 %S/Inputs/detached-build.py kill %t.after.stats | FileCheck %s --check-prefix=KILL
module detached_build;
  reg clock = 0;
  reg [7:0] count = 0;
  always #1 clock = ~clock;
  always @(posedge clock) begin
    count <= count + 1;
    if (count == 8'd9) begin
      $display("count=%0d", count);
      $finish;
    end
  end
endmodule

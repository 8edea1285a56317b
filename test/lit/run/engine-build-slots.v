// Engine builds take one of two build slots, lock files in the engines
// cache directory (EngineBuilder.cpp), and a detached build waits for one
// only while its run goes on. With both slots of the test's own cache held
// (flock -o: the tools run under the held locks do not inherit them), three
// cold runs of a design (--engine auto, the default) each run it at once on
// the software engine and exit, leaving a detached build; each of those
// builds ends with its run, having built nothing: once all three are gone, a
// fourth run, slots still held, again finds no compiled engine. Had a build
// not waited for a slot, it would have run to its end (the wait below waits
// for it) and put the engine in the cache, and the fourth run would start
// on it. Once the slots are released, a run's build takes one and finishes
// after the run, and the next run starts on the compiled engine, with the
// same output. No check depends on how fast anything ran: the held slots
// alone keep the builds back.
// REQUIRES: iverilog
// RUN: %synergy-cc %s -o %t.eng
// RUN: python3 %S/Inputs/private-engine-cache.py %t.cache
// RUN: sh -c 'd=%t.cache/engines; flock -o "$d/build-slot-0.lock" flock -o "$d/build-slot-1.lock" sh -c " \
// RUN:   export SYNERGY_CACHE_DIR=%t.cache SYNERGY_ENGINE_STATS=1 && \
// RUN:   %synergy-run %t.eng > %t.first.out 2> %t.first.stats && \
// RUN:   %synergy-run %t.eng > %t.second.out 2> %t.second.stats && \
// RUN:   %synergy-run %t.eng > %t.third.out 2> %t.third.stats && \
// RUN:   python3 %S/Inputs/detached-build.py wait %t.first.stats > %t.waits && \
// RUN:   python3 %S/Inputs/detached-build.py wait %t.second.stats >> %t.waits && \
// RUN:   python3 %S/Inputs/detached-build.py wait %t.third.stats >> %t.waits && \
// RUN:   %synergy-run %t.eng > %t.held.out 2> %t.held.stats && \
// RUN:   python3 %S/Inputs/detached-build.py wait %t.held.stats >> %t.waits"'
// RUN: FileCheck %s --check-prefix=OUTPUT < %t.first.out
// RUN: diff %t.first.out %t.second.out
// RUN: diff %t.first.out %t.third.out
// RUN: diff %t.first.out %t.held.out
// OUTPUT: count=9
// OUTPUT-EMPTY:
// RUN: FileCheck %s --check-prefix=DETACHED < %t.first.stats
// RUN: FileCheck %s --check-prefix=DETACHED < %t.second.stats
// RUN: FileCheck %s --check-prefix=DETACHED < %t.third.stats
// RUN: FileCheck %s --check-prefix=DETACHED < %t.held.stats
// DETACHED: synergy-engine-stats ticks=20 tasks=2 seconds={{[0-9.]+}} engine=software build=detached build-pid={{[0-9]+$}}
// RUN: FileCheck %s --check-prefix=WAITS < %t.waits
// WAITS-COUNT-4: build finished
// WAITS-EMPTY:
//
// RUN: env SYNERGY_CACHE_DIR=%t.cache SYNERGY_ENGINE_STATS=1 %synergy-run %t.eng > %t.released.out 2> %t.released.stats
// RUN: diff %t.first.out %t.released.out
// RUN: FileCheck %s --check-prefix=DETACHED < %t.released.stats
// RUN: python3 %S/Inputs/detached-build.py wait %t.released.stats | FileCheck %s --check-prefix=WAIT
// WAIT: build finished
// RUN: env SYNERGY_CACHE_DIR=%t.cache SYNERGY_ENGINE_STATS=1 %synergy-run %t.eng > %t.after.out 2> %t.after.stats
// RUN: diff %t.first.out %t.after.out
// RUN: FileCheck %s --check-prefix=CACHED < %t.after.stats
// CACHED: synergy-engine-stats ticks=20 tasks=2 seconds={{[0-9.]+}} engine=compiled{{$}}
module build_slots;
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

// Engine builds take one of two build slots, lock files in the engines
// cache directory (EngineBuilder.cpp). With both slots held by this test, a
// cold `--engine auto` run still runs the design at once on the software
// engine and exits, leaving its build waiting; so does a second run of the
// same design, whose build waits for the first (the design's own lock).
// Nothing is built while the slots are held: a third run started then still
// finds no compiled engine. Once the slots are released both builds end,
// and the next run starts on the compiled engine, with the same output.
// (flock -o: the tools run under the held locks do not inherit them.) The
// design prints a fresh nonce, so
// its engine is never cached before this test. No check depends on how fast
// anything ran: the held slots alone keep the builds waiting.
// REQUIRES: iverilog
// RUN: sh -c 'sed "s/NONCE/$(od -An -N8 -tx8 /dev/urandom | tr -d " ")/" %s' > %t.v
// RUN: %synergy-cc %t.v -o %t.eng
// RUN: sh -c 'mkdir -p "$SYNERGY_CACHE_DIR/engines" && echo "$SYNERGY_CACHE_DIR/engines"' > %t.dir
// RUN: sh -c 'd=$(cat %t.dir); flock -o "$d/build-slot-0.lock" flock -o "$d/build-slot-1.lock" sh -c " \
// RUN:   SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.first.out 2> %t.first.stats && \
// RUN:   SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.second.out 2> %t.second.stats && \
// RUN:   SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.third.out 2> %t.third.stats"'
// RUN: FileCheck %s --check-prefix=OUTPUT < %t.first.out
// RUN: diff %t.first.out %t.second.out
// RUN: diff %t.first.out %t.third.out
// OUTPUT: count=9 nonce={{[0-9a-f]{16}$}}
// OUTPUT-EMPTY:
// RUN: FileCheck %s --check-prefix=DETACHED < %t.first.stats
// RUN: FileCheck %s --check-prefix=DETACHED < %t.second.stats
// RUN: FileCheck %s --check-prefix=DETACHED < %t.third.stats
// DETACHED: synergy-engine-stats ticks=20 tasks=2 seconds={{[0-9.]+}} engine=software build=detached build-pid={{[0-9]+$}}
// RUN: python3 %S/Inputs/detached-build.py wait %t.first.stats | FileCheck %s --check-prefix=WAIT
// RUN: python3 %S/Inputs/detached-build.py wait %t.second.stats | FileCheck %s --check-prefix=WAIT
// RUN: python3 %S/Inputs/detached-build.py wait %t.third.stats | FileCheck %s --check-prefix=WAIT
// WAIT: build finished
// RUN: env SYNERGY_ENGINE_STATS=1 %synergy-run --engine auto %t.eng > %t.after.out 2> %t.after.stats
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
      $display("count=%0d nonce=%h", count, 64'hNONCE);
      $finish;
    end
  end
endmodule

// --timeline FILE.csv writes ticks/s and tasks/s every 100 ms. The file has
// the documented header and monotone rows, and its last row holds the same
// totals as the run's stats line (an independent count of the same run):
// 40002 ticks (tick 0 and the 20000 clock periods up to $finish) and 4
// traps (the 3 $display calls and the $finish). On the software engine alone
// the engine column says software; with a switch forced at tick 9, it moves
// to compiled and the output is unchanged. An unwritable timeline is refused
// before anything runs, under auto before a build is started. No check
// depends on how fast anything ran.
// REQUIRES: iverilog
// RUN: %synergy-cc %s -o %t.eng
// RUN: env SYNERGY_ENGINE_STATS=1 %synergy-run --engine software --timeline %t.software.csv %t.eng > %t.software.out 2> %t.software.stats
// RUN: FileCheck %s --check-prefix=OUTPUT < %t.software.out
// RUN: python3 %S/Inputs/check-timeline.py %t.software.csv %t.software.stats | FileCheck %s --check-prefix=SOFTWARE
// OUTPUT: count=0
// OUTPUT-NEXT: count=10000
// OUTPUT-NEXT: count=20000
// OUTPUT-EMPTY:
// SOFTWARE: header: time_s,ticks,ticks_per_s,tasks,tasks_per_s,engine
// SOFTWARE-NEXT: rows: monotone
// SOFTWARE-NEXT: last row: ticks=40002 tasks=4 engine=software
// SOFTWARE-NEXT: stats: ticks=40002 tasks=4 engine=software
//
// RUN: env SYNERGY_ENGINE_STATS=1 %synergy-run --switch-at-tick 9 --timeline %t.switch.csv %t.eng > %t.switch.out 2> %t.switch.stats
// RUN: FileCheck %s --check-prefix=OUTPUT < %t.switch.out
// RUN: python3 %S/Inputs/check-timeline.py %t.switch.csv %t.switch.stats | FileCheck %s --check-prefix=SWITCH
// SWITCH: header: time_s,ticks,ticks_per_s,tasks,tasks_per_s,engine
// SWITCH-NEXT: rows: monotone
// SWITCH-NEXT: last row: ticks=40002 tasks=4 engine=compiled
// SWITCH-NEXT: stats: ticks=40002 tasks=4 engine=software+compiled
//
// RUN: sh -c '%synergy-run --engine compiled --timeline %t.missing/t.csv %t.eng; echo "exit=$?"' > %t.unwritable 2>&1
// RUN: FileCheck %s --check-prefix=UNWRITABLE --implicit-check-not=count= < %t.unwritable
// UNWRITABLE: synergy-run: error: --timeline: cannot write {{.*}}.missing/t.csv: No such file or directory
// UNWRITABLE-NEXT: exit=2
//
// Under auto (the default) the path is checked before the compiled engine's
// build is started, so a refused run leaves no build behind: no process
// carries the refused run's own cache in its environment.
// RUN: python3 %S/Inputs/private-engine-cache.py %t.refused-cache
// RUN: sh -c 'env SYNERGY_CACHE_DIR=%t.refused-cache %synergy-run --timeline %t.missing/t.csv %t.eng; echo "exit=$?"' > %t.auto-unwritable 2>&1
// RUN: FileCheck %s --check-prefix=UNWRITABLE --implicit-check-not=count= < %t.auto-unwritable
// RUN: python3 %S/Inputs/processes-with-env.py SYNERGY_CACHE_DIR=%t.refused-cache | FileCheck %s --check-prefix=NOTHING-LEFT
// NOTHING-LEFT: left: 0
module timeline_counter;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [31:0] count = 0;
  always @(posedge clock) begin
    if (count % 10000 == 0) $display("count=%0d", count);
    if (count == 20000) $finish;
    count <= count + 1;
  end
endmodule

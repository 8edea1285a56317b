// A read-only grant nested in a writable one stays read-only, in either
// order of the --dir options: the engine reaches a/ref through the writable
// grant a by `./`, by `..` and by a symlink, and every writing $fopen there
// returns 0 with a warning, while a/out stays writable. Nothing in a/ref is
// created or changed.
// The design's own $save replaces its state file by a rename: a second
// hard link to the old file keeps the old contents (an in-place write
// would have changed both), no temporary file is left beside it, and the
// saved state restarts the design. A $save into a/ref (the design's last
// act) is refused with an error, status 1.
// RUN: rm -rf %t && mkdir -p %t/a/ref %t/a/out
// RUN: echo original > %t/a/ref/data.txt
// RUN: ln -s ref %t/a/link
// RUN: echo old-state > %t/a/out/state.sav && ln %t/a/out/state.sav %t/a/out/witness
// RUN: %synergy-cc %s -o %t/design.eng
// RUN: cd %t && not %synergy-run --engine compiled --dir a:a --dir a/ref:a/ref:ro %t/design.eng > %t/rw-first.out 2> %t/rw-first.err
// RUN: FileCheck %s < %t/rw-first.out
// RUN: FileCheck %s --check-prefix=WARN < %t/rw-first.err
// RUN: cat %t/a/ref/data.txt | FileCheck %s --check-prefix=UNCHANGED
// RUN: ls %t/a/ref | FileCheck %s --check-prefix=NOTHING-CREATED --implicit-check-not=created
// RUN: cat %t/a/out/witness | FileCheck %s --check-prefix=WITNESS
// RUN: ls -a %t/a/out | FileCheck %s --check-prefix=NO-TEMPORARY --implicit-check-not=synergy
// RUN: cd %t && not %synergy-run --engine compiled --dir a:a --dir a/ref:a/ref:ro --restart a/out/state.sav %t/design.eng 2>&1 | FileCheck %s --check-prefix=RESTARTED
//
// The same with the read-only grant first.
// RUN: cd %t && not %synergy-run --engine compiled --dir a/ref:a/ref:ro --dir a:a %t/design.eng > %t/ro-first.out 2> %t/ro-first.err
// RUN: FileCheck %s < %t/ro-first.out
// RUN: FileCheck %s --check-prefix=WARN < %t/ro-first.err
// RUN: cat %t/a/ref/data.txt | FileCheck %s --check-prefix=UNCHANGED
// RUN: ls %t/a/ref | FileCheck %s --check-prefix=NOTHING-CREATED --implicit-check-not=created
//
// CHECK: a/./ref/data.txt w: 0
// CHECK-NEXT: a/out/../ref/data.txt a: 0
// CHECK-NEXT: a/link/created.txt w: 0
// CHECK-NEXT: a/ref/data.txt r: 111
// CHECK-NEXT: a/out/written.txt w: nonzero
// CHECK-NEXT: saved at 1
// CHECK-NEXT: tick 2
// WARN: synergy-run: warning: $fopen("a/./ref/data.txt") refused: the --dir grant is read-only
// WARN-NEXT: synergy-run: warning: $fopen("a/out/../ref/data.txt") refused: the --dir grant is read-only
// WARN-NEXT: synergy-run: warning: $fopen("a/link/created.txt") refused: the --dir grant is read-only
// WARN-NEXT: {{.*}}design.eng: error: cannot write 'a/./ref/state.sav': the --dir grant is read-only
// UNCHANGED: original
// NOTHING-CREATED: data.txt
// WITNESS: old-state
// NO-TEMPORARY: state.sav
// NO-TEMPORARY: witness
// RESTARTED-NOT: saved at
// RESTARTED: tick 2
// RESTARTED-NEXT: {{.*}}design.eng: error: cannot write 'a/./ref/state.sav': the --dir grant is read-only
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c;
  integer ticks = 0;
  always @(posedge clock) begin
    ticks = ticks + 1;
    if (ticks == 1) begin
      fd = $fopen("a/./ref/data.txt", "w");
      $display("a/./ref/data.txt w: %0d", fd);
      fd = $fopen("a/out/../ref/data.txt", "a");
      $display("a/out/../ref/data.txt a: %0d", fd);
      fd = $fopen("a/link/created.txt", "w");
      $display("a/link/created.txt w: %0d", fd);
      fd = $fopen("a/ref/data.txt", "r");
      c = $fgetc(fd);
      $display("a/ref/data.txt r: %0d", c);
      fd = $fopen("a/out/written.txt", "w");
      if (fd == 0) $display("a/out/written.txt w: 0");
      else $display("a/out/written.txt w: nonzero");
      $save("a/out/state.sav");
      $display("saved at %0d", ticks);
    end else if (ticks == 2) begin
      $display("tick %0d", ticks);
      $save("a/./ref/state.sav");
    end else begin
      $finish;
    end
  end
endmodule

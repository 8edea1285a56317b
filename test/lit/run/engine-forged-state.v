// A state file's checksum only catches accidents: anyone can recompute it.
// A forged one (Inputs/forge-state.py edits a real one and re-checksums it)
// is checked against the design and the --dir grants before anything of it
// is applied, so restoring can do nothing running the design could not:
// every forgery below is refused with one clear line, exit status 1, no
// output from the design, and no file opened, created or truncated.
// RUN: rm -rf %t.root && mkdir -p %t.root/work && echo OUTSIDE > %t.root/outside.txt
// RUN: %synergy-cc %s -o %t.eng
// RUN: cd %t.root/work && %synergy-run --engine compiled %t.eng --save-at-tick 3 %t.state > %t.first.out
// RUN: FileCheck %s --check-prefix=FIRST < %t.first.out
//
// Positive control: the forger's checksum is right, so an unchanged forgery
// restores, continues the output file, and prints what an unbroken run would.
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.same none x
// RUN: cd %t.root/work && %synergy-run --engine compiled %t.eng --restart %t.same | FileCheck %s --check-prefix=RESUMED
// RUN: FileCheck %s --check-prefix=OUTFILE < %t.root/work/out.txt
//
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.mem file-path /proc/self/mem
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.mem > %t.mem.out 2>&1
// RUN: FileCheck %s --check-prefix=MEM --implicit-check-not=count= < %t.mem.out
// MEM: error: cannot restart: {{.*}}.mem: file record for '/proc/self/mem': cannot reopen it: outside the --dir grants
//
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.outside file-path ../outside.txt
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.outside > %t.outside.out 2>&1
// RUN: FileCheck %s --check-prefix=OUTSIDE --implicit-check-not=count= < %t.outside.out
// RUN: FileCheck %s --check-prefix=OUTSIDE-UNTOUCHED < %t.root/outside.txt
// OUTSIDE: file record for '../outside.txt': cannot reopen it: outside the --dir grants
// OUTSIDE-UNTOUCHED: OUTSIDE
//
// A file that is not there is not created by a restart opening it read-only.
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.absent file-mode r
// RUN: python3 %S/Inputs/forge-state.py %t.absent %t.absent2 file-path absent.txt
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.absent2 2>&1 | FileCheck %s --check-prefix=ABSENT
// RUN: ls %t.root/work | FileCheck %s --check-prefix=NOT-CREATED
// ABSENT: file record for 'absent.txt': cannot reopen it: No such file or directory
// NOT-CREATED-NOT: absent.txt
//
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.position file-position 999999
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.position 2>&1 | FileCheck %s --check-prefix=POSITION
// POSITION: file record for 'out.txt': position 999999 is outside the file ({{[0-9]+}} bytes)
//
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.mode file-mode w+x
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.mode 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: file record for 'out.txt': mode "w+x" is not one $fopen gives
//
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.negative tick -5
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.negative 2>&1 | FileCheck %s --check-prefix=TICK
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.huge tick 18446744073709551615
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.huge 2>&1 | FileCheck %s --check-prefix=TICK
// TICK: error: cannot restart: {{.*}}: state file line 3: bad tick line
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.late tick 50
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --max-ticks 20 --restart %t.late 2>&1 | FileCheck %s --check-prefix=LATE
// LATE: state file tick 50 is beyond --max-ticks
//
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.task monitor-task other
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.task > %t.task.out 2>&1
// RUN: FileCheck %s --check-prefix=TASK --implicit-check-not=count= < %t.task.out
// TASK: state file names a $monitor this design does not have
//
// RUN: python3 %S/Inputs/forge-state.py %t.state %t.values monitor-values 'count=HACKED\n'
// RUN: cd %t.root/work && not %synergy-run --engine compiled %t.eng --restart %t.values > %t.values.out 2>&1
// RUN: FileCheck %s --check-prefix=VALUES --implicit-check-not=HACKED < %t.values.out
// VALUES: state file's $monitor values are not ones this design prints
//
// The output file is as the first run and the positive control left it.
// RUN: FileCheck %s --check-prefix=OUTFILE < %t.root/work/out.txt
//
// FIRST: count=0
// FIRST-NEXT: count=1
// FIRST-NEXT: count=2
// RESUMED: count=3
// RESUMED-NEXT: count=4
// RESUMED-NEXT: count=5
// OUTFILE: line 1
// OUTFILE-NEXT: line 2
// OUTFILE-NEXT: line 3
// OUTFILE-NEXT: line 4
// OUTFILE-NEXT: line 5
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, count = 0;
  initial begin
    fd = $fopen("out.txt", "w");
    $monitor("count=%0d", count);
  end
  always @(posedge clock) begin
    count = count + 1;
    $fdisplay(fd, "line %0d", count);
    if (count == 5) begin
      $fclose(fd);
      $finish;
    end
  end
endmodule

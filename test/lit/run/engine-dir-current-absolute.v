// A grant of the working directory by its absolute name (`--dir $PWD`,
// `--dir $PWD::ro`) holds an engine's relative names as `--dir .` does:
// they are read against the host's current directory. Escapes are still
// refused, and a grant that does not hold the current directory holds no
// relative name.
// RUN: rm -rf %t.root && mkdir -p %t.root/work %t.root/other
// RUN: echo SECRET > %t.root/secret.txt && echo inside > %t.root/work/inside.txt
// RUN: %synergy-cc %s -o %t.eng
// RUN: cd %t.root/work && %synergy-run --engine compiled --dir %t.root/work %t.eng > %t.rw.out 2> %t.rw.err
// RUN: FileCheck %s --check-prefix=RW --implicit-check-not=SECRET < %t.rw.out
// RUN: FileCheck %s --check-prefix=ESCAPE < %t.rw.err
// RUN: ls %t.root/work | FileCheck %s --check-prefix=CREATED
// RUN: rm %t.root/work/created.txt
// RUN: cd %t.root/work && %synergy-run --engine compiled --dir %t.root/work::ro %t.eng > %t.ro.out 2> %t.ro.err
// RUN: FileCheck %s --check-prefix=RO < %t.ro.out
// RUN: FileCheck %s --check-prefix=RO-WARN < %t.ro.err
// RUN: cd %t.root/work && %synergy-run --engine compiled --dir %t.root/other %t.eng > %t.other.out 2> %t.other.err
// RUN: FileCheck %s --check-prefix=OTHER < %t.other.out
// RUN: ls %t.root/work | FileCheck %s --check-prefix=NOTHING-CREATED
//
// RW: inside.txt r: 105
// RW-NEXT: created.txt w: nonzero
// RW-NEXT: ../secret.txt r: 0
// ESCAPE: $fopen("../secret.txt") refused: outside the --dir grants
// CREATED: created.txt
//
// RO: inside.txt r: 105
// RO-NEXT: created.txt w: 0
// RO-WARN: $fopen("created.txt") refused: the --dir grant is read-only
//
// OTHER: inside.txt r: 0
// OTHER-NEXT: created.txt w: 0
// NOTHING-CREATED-NOT: created.txt
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c;
  always @(posedge clock) begin
    fd = $fopen("inside.txt", "r");
    if (fd == 0) $display("inside.txt r: 0");
    else begin
      c = $fgetc(fd);
      $display("inside.txt r: %0d", c);
    end
    fd = $fopen("created.txt", "w");
    if (fd == 0) $display("created.txt w: 0");
    else $display("created.txt w: nonzero");
    fd = $fopen("../secret.txt", "r");
    $display("../secret.txt r: %0d", fd);
    $finish;
  end
endmodule

// An engine's file IO goes through the same sandbox as WASI: a name outside
// the --dir grants (the working directory when there are none) opens
// nothing, $fopen returns 0 as for a missing file, and a warning says why.
// The layout is
//   %t.root/secret.txt, secret.hex   outside the grant
//   %t.root/work/                    the working directory, granted as "."
//   %t.root/work/inside.txt, inside.hex
//   %t.root/work/up -> ../secret.txt a link leaving it
// The absolute write target is substituted into a copy of this design.
// Both resolvers run: openat2(RESOLVE_BENEATH) and the component walk.
// RUN: rm -rf %t.root && mkdir -p %t.root/work
// RUN: echo SECRET > %t.root/secret.txt && echo 5a > %t.root/secret.hex
// RUN: echo inside > %t.root/work/inside.txt && printf '11\n22\n' > %t.root/work/inside.hex
// RUN: ln -s ../secret.txt %t.root/work/up
// RUN: sed 's|@ROOT@|%t.root|' %s > %t.root/design.v
// RUN: %synergy-cc %t.root/design.v -o %t.eng
// RUN: cd %t.root/work && %synergy-run --engine compiled %t.eng > %t.openat2.out 2> %t.openat2.err
// RUN: FileCheck %s --implicit-check-not=SECRET < %t.openat2.out
// RUN: FileCheck %s --check-prefix=WARN < %t.openat2.err
// RUN: cd %t.root/work && env SYNERGY_WASI_NO_OPENAT2=1 %synergy-run --engine compiled %t.eng > %t.walk.out 2> %t.walk.err
// RUN: FileCheck %s --implicit-check-not=SECRET < %t.walk.out
// RUN: FileCheck %s --check-prefix=WARN < %t.walk.err
// RUN: ls %t.root | FileCheck %s --check-prefix=NOTHING-CREATED
//
// A read-only grant of the same directory: reads work, every writing mode
// is refused and creates nothing.
// RUN: rm %t.root/work/created.txt
// RUN: cd %t.root/work && %synergy-run --engine compiled --dir .:.:ro %t.eng > %t.ro.out 2> %t.ro.err
// RUN: FileCheck %s --check-prefix=RO < %t.ro.out
// RUN: FileCheck %s --check-prefix=RO-WARN < %t.ro.err
// RUN: ls %t.root/work | FileCheck %s --check-prefix=RO-NOTHING-CREATED
//
// CHECK: /etc/passwd r: 0
// CHECK-NEXT: ../secret.txt r: 0
// CHECK-NEXT: up r: 0
// CHECK-NEXT: ../escaped.txt w: 0
// CHECK-NEXT: absolute w: 0
// CHECK-NEXT: inside.txt r: 105
// CHECK-NEXT: created.txt w: nonzero
// CHECK-NEXT: readmemh ../secret.hex: 00
// CHECK-NEXT: readmemh inside.hex: 11
// WARN: synergy-run: warning: $fopen("/etc/passwd") refused: outside the --dir grants
// WARN-NEXT: synergy-run: warning: $fopen("../secret.txt") refused: outside the --dir grants
// WARN-NEXT: synergy-run: warning: $fopen("up") refused: outside the --dir grants
// WARN-NEXT: synergy-run: warning: $fopen("../escaped.txt") refused: outside the --dir grants
// WARN-NEXT: synergy-run: warning: $fopen("{{.*}}/absolute.txt") refused: outside the --dir grants
// WARN-NEXT: warning: $readmemh: cannot read '../secret.hex': outside the --dir grants
// NOTHING-CREATED-NOT: escaped.txt
// NOTHING-CREATED-NOT: absolute.txt
//
// RO: inside.txt r: 105
// RO-NEXT: created.txt w: 0
// RO-NEXT: readmemh ../secret.hex: 00
// RO-NEXT: readmemh inside.hex: 11
// RO-WARN: synergy-run: warning: $fopen("created.txt") refused: the --dir grant is read-only
// RO-NOTHING-CREATED-NOT: created.txt
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c;
  reg [7:0] mem [0:1];
  always @(posedge clock) begin
    fd = $fopen("/etc/passwd", "r");
    $display("/etc/passwd r: %0d", fd);
    fd = $fopen("../secret.txt", "r");
    $display("../secret.txt r: %0d", fd);
    fd = $fopen("up", "r");
    $display("up r: %0d", fd);
    fd = $fopen("../escaped.txt", "w");
    $display("../escaped.txt w: %0d", fd);
    fd = $fopen("@ROOT@/absolute.txt", "w");
    $display("absolute w: %0d", fd);
    fd = $fopen("inside.txt", "r");
    c = $fgetc(fd);
    $display("inside.txt r: %0d", c);
    fd = $fopen("created.txt", "w");
    if (fd == 0) $display("created.txt w: 0");
    else $display("created.txt w: nonzero");
    mem[0] = 0;
    $readmemh("../secret.hex", mem);
    $display("readmemh ../secret.hex: %h", mem[0]);
    $readmemh("inside.hex", mem);
    $display("readmemh inside.hex: %h", mem[0]);
    $finish;
  end
endmodule

// The software engine bounds every value to 65536 bits (the widest state
// variable an .eng file may declare), so that no operator allocates without
// bound. A design computing a wider expression is refused by name: under
// --engine software that is an error (status 2, nothing runs, so nothing is
// printed); under --engine auto, and without --engine, the runtime says so
// and waits for the compiled engine, which prints what vvp prints.
// Bad --engine and --switch-at-tick values are refused before anything runs.
// REQUIRES: iverilog
// RUN: %synergy-cc %s -o %t.eng
// RUN: sh -c '%synergy-run --engine software %t.eng; echo "exit=$?"' > %t.software 2>&1
// RUN: FileCheck %s --check-prefix=SOFTWARE --implicit-check-not=wide= < %t.software
// SOFTWARE: synergy-run: error: {{.*}}.eng: the software engine cannot run this design: line {{[0-9]+}}: a replication wider than 65536 bits or of zero copies
// SOFTWARE-NEXT: exit=2
//
// RUN: sh -c '%synergy-run --engine auto %t.eng; echo "exit=$?"' > %t.auto 2>&1
// RUN: FileCheck %s --check-prefix=AUTO < %t.auto
// AUTO: synergy-run: note: {{.*}}.eng: the software engine cannot run this design (line {{[0-9]+}}: a replication wider than 65536 bits or of zero copies); waiting for the compiled engine
// AUTO-NEXT: wide=0000000000000000000000010000000000000000ffffffffffffffff parity=1
// AUTO-NEXT: exit=0
// RUN: sh -c '%synergy-run %t.eng; echo "exit=$?"' > %t.default 2>&1
// RUN: FileCheck %s --check-prefix=AUTO < %t.default
//
// RUN: sh -c '%synergy-run --engine fast %t.eng; echo "exit=$?"' > %t.badengine 2>&1
// RUN: FileCheck %s --check-prefix=BADENGINE --implicit-check-not=wide= < %t.badengine
// BADENGINE: synergy-run: error: --engine expects compiled, software or auto, got 'fast'
// BADENGINE-NEXT: exit=2
// RUN: sh -c '%synergy-run --engine software --switch-at-tick 3 %t.eng; echo "exit=$?"' > %t.badswitch 2>&1
// RUN: FileCheck %s --check-prefix=BADSWITCH --implicit-check-not=wide= < %t.badswitch
// BADSWITCH: synergy-run: error: --switch-at-tick needs --engine auto
// BADSWITCH-NEXT: exit=2
// RUN: sh -c '%synergy-run --switch-at-tick -1 %t.eng; echo "exit=$?"' > %t.negative 2>&1
// RUN: FileCheck %s --check-prefix=NEGATIVE --implicit-check-not=wide= < %t.negative
// NEGATIVE: synergy-run: error: --switch-at-tick expects a tick count, got '-1'
// NEGATIVE-NEXT: exit=2
module wide_expression;
  reg flag;
  reg [223:0] wide;
  initial begin
    flag = 1'b1;
    wide = 224'd0;
    wide[63:0] = 64'hffffffffffffffff;
    wide[128] = 1'b1;
    $display("wide=%h parity=%0d", wide, ^{65537{flag}});
    $finish;
  end
endmodule

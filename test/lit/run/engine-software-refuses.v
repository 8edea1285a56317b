// The software engine runs values of any width, but not yet a casez or casex
// label wider than 64 bits with wildcard digits. Such a design is refused by
// name: under --engine software that is an error (status 2, nothing runs, so
// nothing is printed); under --engine auto the runtime says so and waits for
// the compiled engine, which prints what vvp prints.
// Bad --engine and --switch-at-tick values are refused before anything runs.
// REQUIRES: iverilog
// RUN: %synergy-cc %s -o %t.eng
// RUN: sh -c '%synergy-run --engine software %t.eng; echo "exit=$?"' > %t.software 2>&1
// RUN: FileCheck %s --check-prefix=SOFTWARE --implicit-check-not=k= < %t.software
// SOFTWARE: synergy-run: error: {{.*}}.eng: the software engine cannot run this design: line {{[0-9]+}}: an x or z digit in a constant wider than 64 bits
// SOFTWARE-NEXT: exit=2
//
// RUN: sh -c '%synergy-run --engine auto %t.eng; echo "exit=$?"' > %t.auto 2>&1
// RUN: FileCheck %s --check-prefix=AUTO < %t.auto
// AUTO: synergy-run: note: {{.*}}.eng: the software engine cannot run this design (line {{[0-9]+}}: an x or z digit in a constant wider than 64 bits); waiting for the compiled engine
// AUTO-NEXT: k=0 low
// AUTO-NEXT: k=1 other 00000000000002000000
// AUTO-NEXT: k=2 middle
// AUTO-NEXT: k=3 other 08000000000000000000
// AUTO-NEXT: exit=0
//
// RUN: sh -c '%synergy-run --engine fast %t.eng; echo "exit=$?"' > %t.badengine 2>&1
// RUN: FileCheck %s --check-prefix=BADENGINE --implicit-check-not=k= < %t.badengine
// BADENGINE: synergy-run: error: --engine expects compiled, software or auto, got 'fast'
// BADENGINE-NEXT: exit=2
// RUN: sh -c '%synergy-run --engine software --switch-at-tick 3 %t.eng; echo "exit=$?"' > %t.badswitch 2>&1
// RUN: FileCheck %s --check-prefix=BADSWITCH --implicit-check-not=k= < %t.badswitch
// BADSWITCH: synergy-run: error: --switch-at-tick needs --engine auto
// BADSWITCH-NEXT: exit=2
// RUN: sh -c '%synergy-run --switch-at-tick -1 %t.eng; echo "exit=$?"' > %t.negative 2>&1
// RUN: FileCheck %s --check-prefix=NEGATIVE --implicit-check-not=k= < %t.negative
// NEGATIVE: synergy-run: error: --switch-at-tick expects a tick count, got '-1'
// NEGATIVE-NEXT: exit=2
module wide_casez;
  reg [79:0] word;
  integer k;
  initial begin
    for (k = 0; k < 4; k = k + 1) begin
      word = 80'h1 << (k * 25);
      if (k == 2) word = word | 80'h2_0000;
      casez (word)
        80'h0000_0000_0000_0000_0001: $display("k=%0d low", k);
        80'h????_????_????_????_???3: $display("k=%0d never", k);
        80'h????_????_????_???2_????: $display("k=%0d middle", k);
        default: $display("k=%0d other %h", k, word);
      endcase
    end
    $finish;
  end
endmodule

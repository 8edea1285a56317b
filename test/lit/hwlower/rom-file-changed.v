// An engine whose $readmemh was loaded at compile time into a ROM holds the
// file's contents, while the design reads the file at run time: synergy-run
// checks the file against the hash in the manifest before the first tick
// and refuses to run with stale contents, changed or missing.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: cp %S/Inputs/rom.hex %t.dir/rom.hex
// RUN: cd %t.dir && synergy-hwc %s -o %t.eng
// RUN: FileCheck %s --check-prefix=ENG < %t.eng
// RUN: cd %t.dir && synergy-run --engine compiled %t.eng | FileCheck %s --check-prefix=SAME
// RUN: cp %S/Inputs/rom-bits.txt %t.dir/rom.hex
// RUN: cd %t.dir && not synergy-run --engine compiled %t.eng 2>&1 | FileCheck %s --check-prefix=CHANGED
// RUN: rm %t.dir/rom.hex
// RUN: cd %t.dir && not synergy-run --engine compiled %t.eng 2>&1 | FileCheck %s --check-prefix=MISSING

// ENG: state {{[0-9]+}} wire 8 0 8 0 0 "tb.rom"
// ENG: romfile "rom.hex" {{[0-9a-f]+$}}
// SAME: 11 22 88
// CHANGED: error: rom.hex changed since synergy-cc compiled the engine; recompile
// CHANGED-NOT: 11 22 88
// MISSING: error: rom.hex is missing, but synergy-cc compiled its contents into the engine; recompile
module tb;
  reg [7:0] rom [0:7];
  initial begin
    $readmemh("rom.hex", rom);
    $display("%h %h %h", rom[0], rom[1], rom[7]);
  end
endmodule

// Engines share the granules' verified object cache: a truncated engine
// object and a truncated Verilator runtime object (which would be linked into
// the next engine) are both rebuilt, never used, and the design prints what
// Icarus prints.
// RUN: rm -rf %t.cache
// RUN: synergy-hwc %s -o %t.eng
// RUN: env SYNERGY_CACHE_DIR=%t.cache synergy-run --engine compiled %t.eng | FileCheck %s
// RUN: sh -c 'cd %t.cache/engines && for entry in *.index; do truncate -s 64 $(cut -d" " -f3 $entry)$(echo $entry | sed "s/.*\(\.[a-z]*\)\.index$/\1/"); done'
// RUN: env SYNERGY_CACHE_DIR=%t.cache synergy-run --engine compiled %t.eng | FileCheck %s
// RUN: sh -c 'cd %t.cache/engines && for entry in *.index; do digest=$(cut -d" " -f3 $entry); echo "$digest  $digest$(echo $entry | sed "s/.*\(\.[a-z]*\)\.index$/\1/")"; done | sha256sum -c' | FileCheck %s --check-prefix=INTACT
// CHECK: engine says 42
// INTACT-COUNT-3: : OK
module tb;
  reg [7:0] value;
  initial begin
    value = 8'd42;
    $display("engine says %0d", value);
    $finish;
  end
endmodule

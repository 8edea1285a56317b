// stdout is a pipe here, so it is block-buffered; output that has waited
// 50 ms is still written out while the run goes on (FileTable.h). The
// design prints a line, then polls for a file named `go` every tick; the
// driver creates `go` only once that line has reached it. Held back until
// the run ends, the line would never come (the driver gives up after 60 s).
// Only when bytes arrive changes: the output is the same, in the same order.
// REQUIRES: iverilog
// RUN: rm -rf %t.dir && mkdir -p %t.dir/software %t.dir/compiled
// RUN: %synergy-cc %s -o %t.eng
// RUN: python3 %S/Inputs/first-line-before-go.py %t.dir/software %synergy-run --engine software --dir . --time-limit 100 %t.eng | FileCheck %s
// RUN: python3 %S/Inputs/first-line-before-go.py %t.dir/compiled %synergy-run --engine compiled --dir . --time-limit 100 %t.eng | FileCheck %s
// CHECK: before go: started
// CHECK-NEXT: after go: go seen|
// CHECK-NEXT: exit: 0
module stdout_flush;
  reg clock = 0;
  integer go;
  initial $display("started");
  always #1 clock = ~clock;
  always @(posedge clock) begin
    go = $fopen("go", "r");
    if (go != 0) begin
      $display("go seen");
      $fclose(go);
      $finish;
    end
  end
endmodule

// Engines are two-state: the variables of a `function automatic` or `task
// automatic` call are new, which the engine reads as 0 where vvp reads x
// (README), and that holds for a local array's words too. Each call adds
// its argument into a word it never clears: a word left over from an
// earlier call (the emitted function is static) would show as a growing sum.
// RUN: synergy-cc %s -o %t.eng
// RUN: synergy-run --engine compiled %t.eng | FileCheck %s

// CHECK:      0: f=0000 000a t=00 05 00
// CHECK-NEXT: 1: f=0000 000b t=00 06 00
// CHECK-NEXT: 2: f=0000 000c t=00 07 00
// CHECK-NOT: {{.}}
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  function automatic [15:0] add_to_word(input [7:0] v, input integer k);
    reg [7:0] words [0:3];
    begin
      words[k] = words[k] + v;
      add_to_word = {words[k - 1], words[k]};
    end
  endfunction
  task automatic add_in_task(input [7:0] v, output [23:0] seen);
    reg [7:0] words [1:3];
    begin
      words[2] = words[2] + v;
      seen = {words[1], words[2], words[3]};
    end
  endtask
  reg [23:0] seen;
  integer n = 0;
  always @(posedge clock) begin
    add_in_task(n + 5, seen);
    $display("%0d: f=%h %h t=%h %h %h", n, add_to_word(n + 10, 2) >> 8, add_to_word(n + 10, 2) & 16'hff,
             seen[23:16], seen[15:8], seen[7:0]);
    n = n + 1;
    if (n == 3) $finish;
  end
endmodule

// A $yield tenant for the hypervisor's moves: only the (* non_volatile *)
// variables hold values from one tick to the next, `scratch` is written
// before it is read in every tick, and $yield fires every 10th tick and in
// every tick of a wait in the middle of the run, where it polls once a tick
// for the file "go" (as swap_victim.v does). The hypervisor may move it only
// at the end of a tick in which $yield fired, keeping only the non-volatile
// variables; its output still depends on every value they hold. vvp, the
// reference, knows no $yield: the test defines SYNERGY_NO_YIELD for it.
`ifdef SYNERGY_NO_YIELD
`define YIELD
`else
`define YIELD $yield
`endif
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  (* non_volatile *) reg [31:0] kept = 1;
  (* non_volatile *) reg [31:0] n = 0;
  (* non_volatile *) reg waiting = 0;
  reg [31:0] scratch;
  integer fd;
  always @(posedge clock) begin
    if (waiting) begin
      fd = $fopen("go", "r");
      if (fd != 0) begin
        $fclose(fd);
        waiting = 0;
      end
      `YIELD;
    end else begin
      scratch = kept * 32'd1103515245 + 32'd12345;
      kept = scratch ^ (scratch >> 7);
      n = n + 1;
      if (n % 100 == 0) $display("%d %h", n, kept);
      if (n % 10 == 0) `YIELD;
      if (n == 300) waiting = 1;
      if (n == 600) $finish;
    end
  end
endmodule

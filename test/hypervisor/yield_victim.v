// A $yield tenant for the hypervisor's moves: only the (* non_volatile *)
// variables hold values across a tick in which $yield fires, `scratch` is
// written before it is read in every tick, `run` is carried only between
// ticks without $yield, and $yield fires every 10th tick and in every tick
// of a wait in the middle of the run, where it polls once a tick for the
// file "go" (as swap_victim.v does). The hypervisor may move it only at the
// end of a tick in which $yield fired, keeping only the non-volatile
// variables; its output depends on every value they hold, and on `run`, so
// a move at the end of another tick shows. vvp, the reference, knows no
// $yield: the test defines SYNERGY_NO_YIELD for it.
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
  // Volatile but carried from tick to tick, and restarted in every tick
  // that yields: a move after a tick without $yield, which keeps only the
  // non-volatile variables, would lose it and change the output.
  reg [31:0] run = 0;
  // A task that is not output in a tick without $yield (a look for go,
  // whose answer changes nothing): the engine stops there for its tenant,
  // so the hypervisor gets a request with the engine standing between two
  // ticks that did not yield, where it must not move it.
  integer probe;
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
      run = run + kept[3:0];
      if (n % 10 == 5) begin
        probe = $fopen("go", "r");
        if (probe != 0) $fclose(probe);
      end
      if (n % 100 == 0) $display("%d %h %0d", n, kept, run);
      if (n % 10 == 0) begin
        run = 0;
        `YIELD;
      end
      if (n == 300) waiting = 1;
      if (n == 600) $finish;
    end
  end
endmodule

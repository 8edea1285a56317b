// `initial forever` loops that wait each iteration, a user task that waits
// a number of cycles, and file tasks between waits (state that a split run
// must carry across a suspended wait).
// SAVE-AT-TICK: 24
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, i, got, count = 0, value;
  reg [15:0] sum = 0;

  task wait_cycles(input integer k);
    repeat (k) @(posedge clock);
  endtask

  initial forever @(negedge clock) begin
    count = count + 1;
    if (count % 4 == 0) $display("heartbeat %0d at %0t", count, $time);
  end

  initial begin
    fd = $fopen("event-wait-numbers.txt", "w");
    for (i = 0; i < 5; i = i + 1) begin
      wait_cycles(2);
      $fdisplay(fd, "%0d", i * i + 1);
      $display("wrote %0d at %0t", i * i + 1, $time);
    end
    $fclose(fd);
    fd = $fopen("event-wait-numbers.txt", "r");
    forever begin
      @(posedge clock);
      got = $fscanf(fd, "%d", value);
      if (got != 1) begin
        $display("sum %0d at %0t", sum, $time);
        $finish;
      end
      sum = sum + value;
      $display("read %0d sum %0d", value, sum);
    end
  end
endmodule

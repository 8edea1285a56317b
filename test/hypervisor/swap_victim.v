// A tenant that waits, mid-run, until the test lets it go on: it computes
// 600 ticks, then polls once a tick for the file "go" (holding its state),
// then computes 600 more. Its output depends on every value it holds across
// the wait, however long the wait, so a move into another program that
// loses a value or a tick changes it. The test has the hypervisor move it
// while it waits.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [63:0] acc = 64'h0123456789abcdef;
  reg [99:0] wide = 100'h1;
  reg [7:0] mem [0:15];
  integer n = 0;
  integer i;
  integer fd;
  initial for (i = 0; i < 16; i = i + 1) mem[i] = i * 7;
  always @(posedge clock) begin
    if (n == 600) begin
      fd = $fopen("go", "r");
      if (fd != 0) begin
        $fclose(fd);
        $display("going on with %h %h %h", acc, wide, mem[5]);
        n = n + 1;
      end
    end else begin
      acc <= acc * 64'd6364136223846793005 + 64'd1442695040888963407;
      wide <= {wide[98:0], wide[99] ^ acc[0]};
      mem[n % 16] <= mem[n % 16] + acc[7:0];
      n = n + 1;
      if (n % 100 == 0) $display("%d %h %h %h", n, acc, wide, mem[3]);
      if (n == 1200) $finish;
    end
  end
endmodule

// A tenant's tasks run in the tenant's own runtime, inside its --dir
// grants: a file in the granted directory opens and reads, one above it or
// at an absolute path outside does not, and under a read-only grant a file
// opened for writing does not either. The test runs it solo and as a
// tenant with the same grants; both must print the same.
module tb;
  integer granted, above, absolute, written;
  reg [8*32:1] line;
  initial begin
    granted = $fopen("data.txt", "r");
    above = $fopen("../secret.txt", "r");
    absolute = $fopen("/etc/passwd", "r");
    written = $fopen("written.txt", "w");
    $display("granted %0d above %0d absolute %0d written %0d", granted != 0, above != 0, absolute != 0,
             written != 0);
    if (granted != 0) begin
      $fgets(line, granted);
      $write("%0s", line);
    end
    $finish;
  end
endmodule

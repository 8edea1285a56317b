// $readmemh and $fread into memories whose lowest index is not 0: the @
// records in the file and the start/finish arguments are Verilog indices,
// and a load with no start argument begins at the lowest index.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [7:0] m [16:31];
  reg [7:0] w [16:31];
  reg [7:0] f [16:31];
  integer fd, n, i = 16, k;
  initial begin
    for (k = 16; k < 32; k = k + 1) begin
      m[k] = 8'hee;
      w[k] = 8'hee;
      f[k] = 8'hee;
    end
    fd = $fopen("offset_base.hex", "w");
    $fwrite(fd, "a0 a1 a2\n@18\nb8 b9\n// comment\n@1e c0\n");
    $fclose(fd);
    fd = $fopen("short.hex", "w");
    $fwrite(fd, "11 22 33\n");
    $fclose(fd);
    fd = $fopen("bytes.bin", "w");
    $fwrite(fd, "%c%c%c", 8'h41, 8'h42, 8'h43);
    $fclose(fd);
    $readmemh("offset_base.hex", m);
    $readmemh("short.hex", w, 20, 25);
    fd = $fopen("bytes.bin", "r");
    n = $fread(f, fd, 26, 2);
    $fclose(fd);
    $display("fread read %0d bytes", n);
  end
  always @(posedge clock) begin
    $display("%0d: m=%h w=%h f=%h", i, m[i], w[i], f[i]);
    i = i + 1;
    if (i == 32) $finish;
  end
endmodule

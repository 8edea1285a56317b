// $readmemh/$readmemb into memories nothing else writes before time
// advances: synergy-cc loads the files at compile time into ROMs (see
// test/lit/hwlower/fold-rom-readmem.v), which must read exactly as vvp's
// run-time loads. A memory also written later keeps its run-time load.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  reg [31:0] imem [0:15];
  reg [15:0] lookup [4:11];
  reg [3:0] nibbles [0:3];
  reg [7:0] data [0:15];
  integer i = 0, k;
  initial begin
    for (k = 0; k < 16; k = k + 1) data[k] = 8'hee;
    $readmemh("rom_words.hex", imem);
    $readmemh("rom_table.hex", lookup, 4, 11);
    $readmemb("rom_bits.txt", nibbles);
    $readmemh("program.hex", data, 0, 15);
  end
  always @(posedge clock) begin
    $display("%0d: %h %h %b %h", i, imem[i], lookup[4 + i[2:0]], nibbles[i[1:0]], data[i]);
    data[i] = imem[i][7:0];
    i = i + 1;
    if (i == 16) begin
      for (i = 0; i < 16; i = i + 1) $display("data[%0d] = %h", i, data[i]);
      $finish;
    end
  end
endmodule

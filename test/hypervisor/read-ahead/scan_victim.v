// A tenant that reads a whole file with every input task the hypervisor
// serves from read-ahead windows: $fscanf of a number and of two words,
// $fgetc then $ungetc of the same byte (a peek), $fgets into a 16-byte
// register (long lines come in pieces), $fread into part of a memory and
// into a 96-bit register, four times over ($rewind at the end). Every 41
// reads it pushes back a byte the file does not hold there, and every 53 it
// asks $ftell: the tenant services those itself, so open-loop runs end part
// way through the file and a pushed-back byte stays unread across a run. Its output is a running hash
// of every result and value it read, so a byte read twice or skipped, a
// wrong end of file or a stream left elsewhere than a solo run's changes it.
module tb;
  reg clock = 0;
  always #1 clock = ~clock;
  integer fd, c, r, u, pos, eof, num;
  integer n = 0, pass = 0;
  reg [8*16-1:0] line;
  reg [8*8-1:0] word1, word2;
  reg [95:0] wide;
  reg [7:0] mem [0:5];
  reg [31:0] sum = 0;
  initial fd = $fopen("text.txt", "r");
  always @(posedge clock) begin
    case (n % 6)
      0: begin
        num = -1;
        r = $fscanf(fd, "%d", num);
        sum = sum * 31 + r + num;
      end
      1: begin
        c = $fgetc(fd);
        u = $ungetc(c, fd);
        sum = sum * 31 + c + u;
      end
      2: begin
        line = 0;
        r = $fgets(line, fd);
        sum = sum * 31 + r + line[31:0] + line[127:96];
      end
      3: begin
        mem[1] = 8'h11; mem[2] = 8'h22; mem[3] = 8'h33;
        r = $fread(mem, fd, 1, 3);
        sum = sum * 31 + r + {mem[1], mem[2], mem[3]};
      end
      4: begin
        wide = {3{32'ha5a5a5a5}};
        r = $fread(wide, fd);
        sum = sum * 31 + r + wide[31:0] + wide[95:64];
      end
      5: begin
        word1 = 0;
        word2 = 0;
        r = $fscanf(fd, "%s %s", word1, word2);
        sum = sum * 31 + r + word1[31:0] + word2[63:32];
      end
    endcase
    if (n % 41 == 40) begin
      u = $ungetc(8'h23, fd);
      sum = sum * 7 + u;
    end
    eof = $feof(fd);
    n = n + 1;
    if (n % 53 == 0) begin
      pos = $ftell(fd);
      $display("%0d: at %0d, sum %h, eof %0d", n, pos, sum, eof);
    end
    if (eof) begin
      $display("pass %0d ends after %0d reads: r %0d, sum %h", pass, n, r, sum);
      pass = pass + 1;
      if (pass == 4)
        $finish;
      r = $rewind(fd);
    end
  end
endmodule
